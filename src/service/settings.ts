// The service's configuration: what a caller gives (`ServiceConfig`, every field but the NATS
// connection and the logger optional), and the same with every default applied once
// (`serviceSettings`). The command line passes only what the user gave and prints these defaults
// in its help, so a default is written in one place.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger as PinoLogger } from "pino";
import { defaultEventStreamOptions, defaultSubjectPrefix, type NatsConnectionConfig } from "../bus/index.js";
import { defaultAdmissionLimits, defaultLeaseTiming, defaultMaxLogReads } from "../observations/index.js";
import type { SigningKey, VerifyKey } from "../signing/index.js";
import { defaultCelCostLimit, type AnalysisTemplate, type ClusterName, type FailOnEntry, type Rule } from "../verdicts/index.js";
import type { PrometheusOptions } from "../prometheus/index.js";
import { defaultJetStreamWaitMs } from "./jetStreamStartup.js";
import { defaultMaxDeploymentLabels } from "./metrics.js";
import { defaultCallerQuotas, type CallerQuotas, type TenantDirectory } from "../tenants/index.js";
import type { TraceExportChoice } from "../tracing/index.js";

export interface ServiceConfig {
  /** Undefined: in-cluster config, or KUBECONFIG when set (client-node's loadFromDefault). */
  kubeConfig?: KubeConfig;
  nats: NatsConnectionConfig;
  /** Watch only these namespaces; the whole cluster when undefined. */
  namespaces?: readonly string[];
  /** With the whole cluster watched: Secrets only in these (an empty list: none); undefined, everywhere. */
  secretNamespaces?: readonly string[];
  metricsHost?: string;
  /** 0 picks a free port. */
  metricsPort?: number;
  subjectPrefix?: string;
  /** CEL health checks of custom kinds, compiled (compileHealthChecks); they decide instead of the health library's entries. */
  healthChecks?: ReadonlyMap<string, Rule>;
  /** Warning events shown in readings; off, events are never listed or watched. */
  warningEvents?: boolean;
  logger: PinoLogger;
  /** This replica's id, in its leases and logs (the pod name in Kubernetes). */
  replicaId?: string;
  /** Copies of the event stream and the KV buckets in a clustered JetStream (1 for a single server). */
  jetstreamReplicas?: number;
  /** How long a lease lasts unrenewed: the longest an observation waits for a new owner after a crash. */
  leaseDurationMs?: number;
  /** How long a graceful stop waits for verdicts and events still going out. */
  shutdownGraceMs?: number;
  /** Read the failing container's log tail for requests with `logs` (needs `get` on pods/log). */
  containerLogs?: boolean;
  /** The failOn of requests that name none, and what a request may not loosen (serve --fail-on); none: defaultFailOn, replaced freely. */
  failOn?: readonly FailOnEntry[];
  /** The `verified` stage's metric checks (serve --analyses) and the Prometheus they query (--prometheus-url ...); none: requests naming one are refused. */
  analyses?: { readonly templates: ReadonlyMap<string, AnalysisTemplate>; readonly prometheus: PrometheusOptions };
  /** Signs every verdict and event (serve --signing-key); none: nothing is signed. */
  signingKey?: SigningKey;
  /** Keys whose signatures the service keeps trusting besides its own: the previous key during a rotation. */
  trustedKeys?: readonly VerifyKey[];
  /** The cluster's name, as decided verdicts' attestations state it (serve --cluster-name). */
  clusterName?: ClusterName;
  /** How long start-up waits for JetStream (a fresh cluster electing its leaders) before exiting 3. */
  jetstreamWaitMs?: number;
  /** Observations in flight on this replica, every caller together (admission). */
  maxInFlight?: number;
  /**
   * Replicas running (the chart's replicaCount): each caller's quotas below, and a tenant's, are
   * for the service as a whole, and each replica enforces its share (src/tenants/quotas.ts).
   */
  replicas?: number;
  /** Observations in flight for one caller. */
  maxInFlightPerCaller?: number;
  /** New observation requests a second for one caller. */
  requestsPerSecond?: number;
  /** `get` requests a second for one caller. */
  getsPerSecond?: number;
  /** `cancel` requests a second for one caller. */
  cancelsPerSecond?: number;
  /** `list` requests a second for one caller. */
  listsPerSecond?: number;
  /** Requests of one caller waiting or being handled at once, every kind together. */
  maxPendingPerCaller?: number;
  /** The event stream's bytes; its oldest events go first past it. */
  eventStreamMaxBytes?: number;
  /** Events kept per observation (its subject); its oldest go first past it. */
  maxEventsPerObservation?: number;
  /** The records bucket's bytes; a full bucket refuses new observations. */
  recordsMaxBytes?: number;
  /** The leases bucket's bytes. */
  leasesMaxBytes?: number;
  /** Container log reads at once on this replica. */
  maxLogReads?: number;
  /** Distinct deployments the stage_reached_seconds metric names; later ones are `(other)`. */
  maxDeploymentLabels?: number;
  /** The tenants file (serve --tenants): callers are then NATS accounts, each scoped to its own. None: one caller, everything allowed. */
  tenants?: TenantDirectory;
  /** Whether and where each decided observation's trace is exported (traceExportFromEnv); default off. */
  traces?: TraceExportChoice;
}

export const serviceDefaults = {
  metricsHost: "0.0.0.0",
  metricsPort: 9090,
  subjectPrefix: defaultSubjectPrefix,
  warningEvents: true,
  jetstreamReplicas: 1,
  leaseDurationMs: defaultLeaseTiming.durationMs,
  shutdownGraceMs: 20_000,
  containerLogs: false,
  jetstreamWaitMs: defaultJetStreamWaitMs,
  maxInFlight: defaultAdmissionLimits.inFlight,
  replicas: 1,
  maxInFlightPerCaller: defaultCallerQuotas.inFlightPerCaller,
  requestsPerSecond: defaultCallerQuotas.requestsPerSecond,
  getsPerSecond: defaultCallerQuotas.getsPerSecond,
  cancelsPerSecond: defaultCallerQuotas.cancelsPerSecond,
  listsPerSecond: defaultCallerQuotas.listsPerSecond,
  maxPendingPerCaller: defaultCallerQuotas.pendingPerCaller,
  eventStreamMaxBytes: defaultEventStreamOptions.maxBytes,
  maxEventsPerObservation: defaultEventStreamOptions.maxEventsPerObservation,
  recordsMaxBytes: 256 * 1024 ** 2,
  leasesMaxBytes: 32 * 1024 ** 2,
  maxLogReads: defaultMaxLogReads,
  maxDeploymentLabels: defaultMaxDeploymentLabels,
  /** Applied when the health checks are compiled (serve --health-checks); listed here for its one default. */
  celCostLimit: defaultCelCostLimit,
  traces: { enabled: false, because: "not configured" } as TraceExportChoice,
} as const;

type Unset = "kubeConfig" | "namespaces" | "secretNamespaces" | "healthChecks" | "signingKey" | "trustedKeys" | "clusterName" | "tenants" | "failOn" | "analyses";
export type ServiceSettings = Readonly<Omit<Required<ServiceConfig>, Unset> & Pick<ServiceConfig, Unset>>;

export function serviceSettings(config: ServiceConfig): ServiceSettings {
  return {
    ...serviceDefaults,
    // A replica id must be unique per running process: the host name alone repeats after a restart in place.
    replicaId: `${hostname()}-${randomBytes(3).toString("hex")}`,
    ...withoutUndefined(config),
    nats: config.nats,
    logger: config.logger,
  };
}

/** A field given as undefined takes its default, as one left out does. */
function withoutUndefined<T extends object>(config: T): Partial<T> {
  return Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Every caller's quotas for the service as a whole, where its tenant's give none. */
export function callerQuotasOf(settings: ServiceSettings): CallerQuotas {
  return {
    inFlightPerCaller: settings.maxInFlightPerCaller,
    requestsPerSecond: settings.requestsPerSecond,
    getsPerSecond: settings.getsPerSecond,
    cancelsPerSecond: settings.cancelsPerSecond,
    listsPerSecond: settings.listsPerSecond,
    pendingPerCaller: settings.maxPendingPerCaller,
  };
}

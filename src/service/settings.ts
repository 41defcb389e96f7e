// The service's configuration: what a caller gives (`ServiceConfig`, every field but the NATS
// connection and the logger optional), and the same with every default applied once
// (`serviceSettings`). The command line passes only what the user gave and prints these defaults
// in its help, so a default is written in one place.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger as PinoLogger } from "pino";
import { defaultSubjectPrefix, type NatsConnectionConfig } from "../bus/index.js";
import { defaultLeaseTiming } from "../observations/index.js";
import type { SigningKey, VerifyKey } from "../signing/index.js";
import type { TraceExportChoice } from "../tracing/index.js";
import type { Rule } from "../verdicts/index.js";

export interface ServiceConfig {
  /** Undefined: in-cluster config, or KUBECONFIG when set (client-node's loadFromDefault). */
  kubeConfig?: KubeConfig;
  nats: NatsConnectionConfig;
  /** Watch only these namespaces; the whole cluster when undefined. */
  namespaces?: readonly string[];
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
  /** Signs every verdict and event (serve --signing-key); none: nothing is signed. */
  signingKey?: SigningKey;
  /** Keys whose signatures the service keeps trusting besides its own: the previous key during a rotation. */
  trustedKeys?: readonly VerifyKey[];
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
  traces: { enabled: false, because: "not configured" } as TraceExportChoice,
} as const;

type Unset = "kubeConfig" | "namespaces" | "healthChecks" | "signingKey" | "trustedKeys";
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

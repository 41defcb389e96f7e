// A real ObservationEngine over a real InformerHub, whose API server is a ScriptedCluster, on
// virtual time: tests change objects in the cluster, move the clock, and read what was published.
import type { KubeObject } from "../../kube/objects.js";
import type { Logger } from "../../logging/index.js";
import type { ServiceSigner } from "../../signing/index.js";
import { VirtualClock, ScriptedTransport } from "../../streams/testing/index.js";
import { InformerHub, type PodLogReader, type ReflectorTiming, type Slicing } from "../../streams/index.js";
import { ObservationRequest, describeIssues, parseWith, type FailOnEntry, type ObservationRequestInput } from "../../verdicts/index.js";
import type { DeploymentHistories, ObserveResult } from "../../bus/index.js";
import type { Caller } from "../../tenants/index.js";
import type { MetricChecks, TraceSink } from "../ports.js";
import { ObservationEngine } from "../engine.js";
import { Adopter } from "../leases/adoption.js";
import { LeaseKeeper } from "../leases/leaseKeeper.js";
import type { AdmissionLimits } from "../admission/admission.js";
import { defaultLeaseTiming, heartbeatTickMs, type LeaseTiming } from "../leases/leasePolicy.js";
import { noopLeaseMetrics } from "../telemetry.js";
import { InMemoryLeaseStore } from "../leases/inMemoryLeases.js";

import { CapturingEventStore } from "./capturingEventStore.js";
import { InMemoryObservationRecords } from "../records/inMemoryRecords.js";
import { ScriptedCluster } from "./scriptedCluster.js";

export interface EngineHarnessOptions {
  /** The service's --namespaces; the whole cluster when undefined. */
  readonly namespaces?: readonly string[];
  /** Where virtual time starts. */
  readonly startAt?: string;
  /** The engine's decidedMemory. */
  readonly decidedMemory?: number;
  /** The informers' timing (watchdog, backoff); the defaults when absent. */
  readonly timing?: Partial<ReflectorTiming>;
  /** How the hub spreads lists and snapshots over turns (SteppedSlicing to run them by hand); the defaults when absent. */
  readonly slicing?: Partial<Slicing>;
  /** Lease duration and renewal; the service's defaults when absent. */
  readonly leaseTiming?: LeaseTiming;
  /** Warning events shown (the service's --warning-events); true when absent. */
  readonly warningEvents?: boolean;
  /** The engine's container log reader (serve --container-logs); none when absent. */
  readonly podLogs?: PodLogReader;
  /** The service's signer (serve --signing-key), shared by every replica and the event store; nothing signed when absent. */
  readonly signer?: ServiceSigner;
  /** The engine's admission limits (serve --max-in-flight ...); the defaults when absent. */
  readonly admissionLimits?: Partial<AdmissionLimits>;
  /** Secrets checked only in these namespaces (serve --secret-namespaces); everywhere when absent. */
  readonly secretNamespaces?: readonly string[];
  /** The NATS server's max_payload the engine fits records and events to; 1 MiB when absent. */
  readonly maxPayloadBytes?: number;
  /** The deployments' histories, shared by every replica; none when absent. */
  readonly history?: DeploymentHistories;
  /** Where decided observations' traces go, shared by every replica; none when absent. */
  readonly traces?: TraceSink;
  /** The service's failOn (serve --fail-on); the built-in default when absent. */
  readonly failOn?: readonly FailOnEntry[];
  /** The service's metric checks (serve --analyses, --prometheus-url), shared by every replica; none when absent. */
  readonly analyses?: MetricChecks;
}

export interface LoggedLine {
  readonly level: "info" | "warn" | "error";
  readonly message: string;
  readonly fields: object;
}

/**
 * SPEC section 7's request for deployment `payments`, observing Deployment `api` (generation 7)
 * until healthy within 5 minutes; overrides replace whole fields.
 */
export function observationRequest(overrides: Partial<ObservationRequestInput> = {}): ObservationRequestInput {
  return {
    key: "ci-4812/payments",
    deployment: "payments",
    require: "healthy",
    timeoutSeconds: 300,
    defaultNamespace: "payments",
    resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 }],
    ...overrides,
  };
}

/** Lets promise callbacks (record writes, kind resolution) run; virtual time does not move. */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Changes the harness's cluster, then lets the record writes and publications the change caused finish. */
export async function putObjects(h: Pick<EngineHarness, "cluster">, ...objects: KubeObject[]): Promise<void> {
  for (const object of objects) h.cluster.put(object);
  await drainMicrotasks();
}

export function engineHarness(options: EngineHarnessOptions = {}) {
  const clock = new VirtualClock();
  clock.scheduler.frame = Date.parse(options.startAt ?? "2026-11-29T10:00:00Z");
  const transport = new ScriptedTransport();
  const cluster = new ScriptedCluster(transport, options.namespaces);
  // random() = 0: no jitter in backoff or watch timeouts.
  const hub = new InformerHub({
    transport,
    scheduler: clock.scheduler,
    random: () => 0,
    ...(options.namespaces && { namespaces: options.namespaces }),
    ...(options.secretNamespaces && { secretNamespaces: options.secretNamespaces }),
    ...(options.timing && { timing: options.timing }),
    ...(options.slicing && { slicing: options.slicing }),
  });
  const records = new InMemoryObservationRecords();
  const events = new CapturingEventStore(options.signer);
  const logged: LoggedLine[] = [];
  const logger: Logger = {
    debug: () => {},
    info: (fields, message) => logged.push({ level: "info", message, fields }),
    warn: (fields, message) => logged.push({ level: "warn", message, fields }),
    error: (fields, message) => logged.push({ level: "error", message, fields }),
  };
  let sequence = 0;
  const leaseStore = new InMemoryLeaseStore();
  const leaseTiming = options.leaseTiming ?? defaultLeaseTiming;

  /**
   * One replica of the service: an engine with its own lease keeper and adopter, sharing the
   * cluster, the records, the leases and the event stream with every other replica of the harness.
   * Its adopter starts only on `startAdopting()`, so single-replica tests see no adoption scans.
   */
  function replica(replicaId: string) {
    const leases = new LeaseKeeper({ store: leaseStore, replicaId, timing: leaseTiming, scheduler: clock.scheduler, metrics: noopLeaseMetrics, logger });
    const replicaEngine = new ObservationEngine({
      kinds: hub,
      events,
      records,
      leases,
      scheduler: clock.scheduler,
      newObservationId: () => `obs-${++sequence}`,
      logger,
      ...(options.decidedMemory !== undefined && { decidedMemory: options.decidedMemory }),
      ...(options.warningEvents !== false && { warnings: hub.warnings() }),
      ...(options.podLogs && { podLogs: options.podLogs }),
      ...(options.signer && { signer: options.signer }),
      ...(options.admissionLimits && { admissionLimits: options.admissionLimits }),
      ...(options.maxPayloadBytes !== undefined && { maxPayloadBytes: options.maxPayloadBytes }),
      ...(options.history && { history: options.history }),
      ...(options.traces && { traces: options.traces }),
      ...(options.failOn && { failOn: options.failOn }),
      ...(options.analyses && { analyses: options.analyses }),
    });
    const adopter = new Adopter({
      store: leaseStore,
      keeper: leases,
      engine: replicaEngine,
      timing: leaseTiming,
      scheduler: clock.scheduler,
      metrics: noopLeaseMetrics,
      logger,
    });
    return {
      replicaId,
      engine: replicaEngine,
      leases,
      adopter,
      async startAdopting() {
        await leases.startHeartbeat();
        await adopter.start();
        await drainMicrotasks();
      },
      /** A SIGTERM, in the service's order: no more adoptions, leases handed back, then nothing runs. */
      async shutDown() {
        adopter.stop();
        await replicaEngine.handOver();
        leases.stopHeartbeat();
        replicaEngine.stop();
      },
      /** A SIGKILL: nothing more runs, nothing is handed back. */
      crash() {
        adopter.stop();
        leases.stopHeartbeat();
        replicaEngine.stop();
      },
    };
  }
  const first = replica("replica-a");
  const engine = first.engine;

  /** Parses the request as the bus does (defaults applied), observes as `caller` (default: the sole caller), and lets the engine subscribe. */
  async function observe(input: ObservationRequestInput, caller?: Caller): Promise<ObserveResult> {
    const parsed = parseWith(ObservationRequest, input);
    if (!parsed.ok) throw new Error(`invalid test request: ${describeIssues(parsed.issues)}`);
    const result = await engine.observe(parsed.value, caller);
    await drainMicrotasks();
    return result;
  }

  /** observe, for requests the test expects to be accepted: the observation id. */
  async function start(input: ObservationRequestInput, caller?: Caller): Promise<string> {
    const result = await observe(input, caller);
    if (!result.ok) throw new Error(`observation refused: ${result.code}: ${result.message}`);
    return result.observationId;
  }

  /**
   * Moves virtual time, at most a lease keeper's tick at a time, letting the writes each step
   * caused finish before the next: a heartbeat is acknowledged before the next tick looks at it,
   * as on a real clock, rather than every tick of a long step firing with none acknowledged.
   */
  async function advance(ms: number): Promise<void> {
    const step = heartbeatTickMs(leaseTiming);
    let left = ms;
    do {
      const next = Math.min(step, left);
      clock.advance(next);
      left -= next;
      await drainMicrotasks();
    } while (left > 0);
  }

  return { clock, transport, cluster, hub, engine, first, replica, leaseStore, records, events, logged, observe, start, advance };
}

export type EngineHarness = ReturnType<typeof engineHarness>;

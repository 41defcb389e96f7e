// What the engine is built from, as ports it is handed: where kinds and their informers come
// from, where events are stored, the records and leases of the bus, the clock. A leaf of this
// folder, types and one constant: every module of the engine imports these from here, none from the
// engine itself; the defaults filled in for what is not given are engineSettings.ts's.
import type { SchedulerLike } from "rxjs";
import type { DeploymentHistories, ObservationRecords } from "../bus/index.js";
import type { Logger } from "../logging/index.js";
import type { ServiceSigner } from "../signing/index.js";
import type { Informer, PodLogReader, ResourceMapping, WarningSource } from "../streams/index.js";
import type { AnalysisTemplate, DecidedObservation, FailOnEntry, MeasuredValue, ObservationEvent, ObservationRequest, Rule } from "../verdicts/index.js";
import type { AdmissionLimits } from "./admission/admission.js";
import type { LeaseKeeper } from "./leases/leaseKeeper.js";
import type { EngineMetrics } from "./telemetry.js";

/** Where kinds and their informers come from: the InformerHub in the service, a fake in unit tests. */
export interface KindSource {
  resolve(apiVersion: string, kind: string): Promise<ResourceMapping>;
  informer(target: ResourceMapping): Informer;
  /** The namespaces watched; undefined for the whole cluster. */
  readonly namespaces: readonly string[] | undefined;
  /** Where one kind is watched, when it differs from `namespaces` (Secrets: serve --secret-namespaces). */
  namespacesOf?(kindKey: string): readonly string[] | undefined;
}

/** The `verified` stage's metric checks: the operator's templates (serve --analyses) and Prometheus (serve --prometheus-url). */
export interface MetricChecks {
  /** What a request's `verify.analyses` may name. */
  readonly templates: ReadonlyMap<string, AnalysisTemplate>;
  /** One rendered query's value, or why it has none; never rejects (an unreachable server is an inconclusive measurement). */
  measure(query: string): Promise<MeasuredValue>;
}

/** Where the engine's events go: the bus's event stream. */
export interface EventStore {
  /** Stores the event on the bus; resolves when stored or given up on, never rejects. */
  publish(event: ObservationEvent): Promise<unknown>;
  /** Whether the observation's verdict is already on the bus (a crash may have come between deciding and publishing). */
  hasVerdict(deployment: string, observationId: string, tenant: string | undefined): Promise<boolean>;
  /** Drops the events of an observation still waiting to be sent: it went to another replica. */
  discard(observationId: string): void;
}

export interface ObservationEngineOptions {
  kinds: KindSource;
  events: EventStore;
  records: ObservationRecords;
  /** This replica's leases: one for each observation it drives. */
  leases: LeaseKeeper;
  /** The clock the reducer reads and the timers run on; a virtual-time scheduler in tests. */
  scheduler?: SchedulerLike;
  newObservationId?: () => string;
  metrics?: EngineMetrics;
  logger?: Logger;
  /** How many decided observations `get` answers from memory before falling back to the records. */
  decidedMemory?: number;
  /** CEL health checks of custom kinds by kind key (compileHealthChecks). */
  healthChecks?: ReadonlyMap<string, Rule>;
  /** Warning events shown in pending readings; none when undefined (`--warning-events=false`). */
  warnings?: WarningSource;
  /** Reads a failing container's log for requests with `logs: true`; absent: such requests get a note (serve --container-logs). */
  podLogs?: PodLogReader;
  /**
   * Signs every verdict the engine makes before it is stored or published, and decides whether a
   * verdict it finds in a record is one to publish (serve --signing-key). Default: nothing signed.
   */
  signer?: ServiceSigner;
  /** The NATS server's max_payload (its INFO): no record or event the engine writes is larger. Default 1 MiB, the server's default. */
  maxPayloadBytes?: number;
  /** Container log reads at once on this replica (logTails); default 8. */
  maxLogReads?: number;
  /** Observations in flight this replica admits (admission.ts); requests a second are the bus's (arrivalLimits.ts). */
  admissionLimits?: Partial<AdmissionLimits>;
  /** Each deployment's recent observations: read as one begins (its expectation), appended when one is decided. None: no history. */
  history?: DeploymentHistories;
  /** Exports each decided observation as a trace (docs/user/tracing.md); none: no traces. */
  traces?: TraceSink;
  /**
   * The service's failOn (serve --fail-on): written into each request that names none, and what a
   * request naming one may tighten but not loosen (loosenedIssues). None: defaultFailOn, and a
   * request's failOn replaces it freely.
   */
  failOn?: readonly FailOnEntry[];
  /** The metric checks a `require: verified` request may run; none: a request naming one is refused. */
  analyses?: MetricChecks;
}

/** nats-server's default max_payload. */
export const defaultMaxPayloadBytes = 1024 * 1024;

/** Where a decided observation's spans go (tracing/): given the record's content, never awaited by a verdict. */
export interface TraceSink {
  export(decided: DecidedObservation): void;
  /** The id of the trace the observation's spans go to (the caller's, or one of its own): the exemplar of its verdict. */
  traceIdOf(request: ObservationRequest, observationId: string): string;
}

// The failing container's log tail, read once for a decided verdict whose request asked for it
// (`logs: true`), between deciding and storing: the stored verdict, and so the published one and
// every `get`, carries the tail (failure.logTail) or the reason it has none (failure.logNote).
//
// - one pods/log read per decided observation, never per event: the container comes from the
//   objects the informers hold (failingContainer), not from another API call;
// - never a failure of the verdict, never a long delay: a refused, missing or slow read is a note,
//   and the read is abandoned after `timeoutMs` (2 s), so the verdict is at most that much later;
// - allowed by the service, not only the request: without a reader (serve without
//   --container-logs, no pods/log in its RBAC) a request's `logs` gets a note saying so.
import {
  failingContainer,
  logNoteOf,
  logTailLimits,
  logTailOf,
  type Failure,
  type LogTailLimits,
  type LogTarget,
  type ResourceIdentity,
  type ObservationVerdict,
} from "../verdicts/index.js";
import { KubeRequestError, type PodLogReader } from "../streams/index.js";
import type { KindSource } from "./engine.js";
import type { OwnedObjectIndex } from "./ownedObjects.js";
import type { EngineLogger } from "./telemetry.js";

export interface FailureLogsOptions {
  /** Undefined: this service does not read container logs. */
  readonly reader: PodLogReader | undefined;
  readonly kinds: KindSource;
  readonly owned: OwnedObjectIndex;
  readonly logger: EngineLogger;
  /** How long a read may take before it is abandoned for a note (default 2 s). */
  readonly timeoutMs?: number;
  readonly limits?: LogTailLimits;
}

export const defaultLogReadTimeoutMs = 2_000;

export const notAllowedNote = "the service does not read container logs (stagewatch serve --container-logs, chart value containerLogs.enabled)";

/** The server's own reason and words: `Forbidden: pods "x" is forbidden: ...`, `NotFound: pods "x" not found`. */
function describeReadError(error: unknown, timeoutMs: number): string {
  if (error instanceof KubeRequestError) {
    if (error.reason && error.statusMessage) return `${error.reason}: ${error.statusMessage}`;
    return error.statusMessage ?? error.message;
  }
  if (error instanceof DOMException && error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000}s`;
  return error instanceof Error ? error.message : String(error);
}

function withFailure(verdict: ObservationVerdict, detail: Pick<Failure, "logTail" | "logNote">): ObservationVerdict {
  return verdict.failure ? { ...verdict, failure: { ...verdict.failure, ...detail } } : verdict;
}

export class FailureLogs {
  private readonly options: FailureLogsOptions;

  constructor(options: FailureLogsOptions) {
    this.options = options;
  }

  /** Whether `verdict` gets a log read: its request asked (`logs`), and it failed or timed out on a resource. */
  wanted(logs: boolean, verdict: ObservationVerdict): boolean {
    return logs && verdict.failure !== undefined && (verdict.outcome === "failed" || verdict.outcome === "timed_out");
  }

  /** The verdict with its failure's log tail or note; the verdict unchanged when there is no container to read. Never rejects. */
  async attach(observationId: string, verdict: ObservationVerdict): Promise<ObservationVerdict> {
    const failure = verdict.failure!;
    try {
      const choice = failingContainer(failure, ...(await this.objectsOf(failure.resource)));
      if (!choice) return verdict;
      if ("note" in choice) return withFailure(verdict, { logNote: choice.note });
      if (!this.options.reader) return withFailure(verdict, { logNote: logNoteOf(choice.read, notAllowedNote) });
      return withFailure(verdict, await this.read(observationId, choice.read));
    } catch (error) {
      this.options.logger.error({ observationId, err: error }, "cannot choose the container whose log to read");
      return verdict;
    }
  }

  private async objectsOf(identity: ResourceIdentity) {
    const { kinds, owned } = this.options;
    const mapping = await kinds.resolve(identity.apiVersion, identity.kind);
    const object = kinds.informer(mapping).get(identity.namespace, identity.name);
    return [object, object ? owned.ownedBy(object) : { replicaSets: [], pods: [] }] as const;
  }

  private async read(observationId: string, target: LogTarget): Promise<Pick<Failure, "logTail" | "logNote">> {
    const limits = this.options.limits ?? logTailLimits;
    const timeoutMs = this.options.timeoutMs ?? defaultLogReadTimeoutMs;
    const request = { ...target, tailLines: limits.lines + 1, limitBytes: limits.bytes };
    try {
      const text = await this.options.reader!(request, AbortSignal.timeout(timeoutMs));
      return { logTail: logTailOf(target, text, limits) };
    } catch (error) {
      const note = logNoteOf(target, describeReadError(error, timeoutMs));
      this.options.logger.warn({ observationId, note }, "container log not read");
      return { logNote: note };
    }
  }
}

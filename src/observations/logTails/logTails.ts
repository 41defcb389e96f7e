// The failing container's log tail, read once for a decided verdict whose request asked for it
// (`logs: true`), between deciding and storing: the stored verdict, and so the published one and
// every `get`, carries the tail (failure.logTail) or the reason it has none (failure.logNote).
//
// - one pods/log read per decided observation, never per event: the container comes from the
//   objects the informers hold (failingContainer), not from another API call. The pods are read
//   from the Pod informer's cache (every pod of the namespace; failingContainer joins by owner UID)
//   once it has listed: an observation can be decided by its Job's first event, before the pods
//   are known (a fresh replica, an adoption);
// - never a failure of the verdict, never a long delay: a refused, missing or slow read is a note,
//   and the read is abandoned after `timeoutMs` (2 s), so the verdict is at most that much later;
// - at most `maxConcurrentReads` reads at once across the replica (readSlots): one that finds
//   no slot within its timeout gets a note naming the limit;
// - allowed by the service, not only the request: without a reader (serve without
//   --container-logs) a request's `logs` gets a note saying so; a service whose RBAC lacks
//   pods/log gets the API server's Forbidden in the note.
import type { Logger } from "../../logging/index.js";
import { filter, take } from "rxjs";
import { podOwningKinds, replicaSetOwningKinds } from "../../kube/kindFacts.js";
import type { KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import { KubeRequestError, type Informer, type PodLogReader } from "../../streams/index.js";
import {
  failingContainer,
  groupKind,
  logNoteOf,
  logTailLimits,
  logTailOf,
  type Failure,
  type LogTailLimits,
  type LogTarget,
  type ObservationVerdict,
  type ResourceIdentity,
} from "../../verdicts/index.js";
import type { KindSource } from "../ports.js";
import { ReadSlots, ReadSlotsBusyError } from "./readSlots.js";

export interface FailureLogsOptions {
  /** Undefined: this service does not read container logs. */
  readonly reader: PodLogReader | undefined;
  readonly kinds: KindSource;
  readonly logger: Logger;
  /** How long finding the container and reading its log may take before it is abandoned for a note (default 2 s). */
  readonly timeoutMs?: number;
  readonly limits?: LogTailLimits;
  /** Log reads at once, for every observation of this replica (default 8); one past it waits within its timeout. */
  readonly maxConcurrentReads?: number;
}

const defaultLogReadTimeoutMs = 2_000;
export const defaultMaxLogReads = 8;

const notAllowedNote = "the service does not read container logs (stagewatch serve --container-logs, chart value containerLogs.enabled)";

/** The server's own reason and words: `Forbidden: pods "x" is forbidden: ...`, `NotFound: pods "x" not found`. */
function describeReadError(error: unknown, timeoutMs: number): string {
  if (error instanceof KubeRequestError) {
    if (error.reason && error.statusMessage) return `${error.reason}: ${error.statusMessage}`;
    return error.statusMessage ?? error.message;
  }
  if (error instanceof ReadSlotsBusyError) return error.message;
  if (error instanceof DOMException && error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000}s`;
  return error instanceof Error ? error.message : String(error);
}

function withFailure(verdict: ObservationVerdict, detail: Pick<Failure, "logTail" | "logNote">): ObservationVerdict {
  return verdict.failure ? { ...verdict, failure: { ...verdict.failure, ...detail } } : verdict;
}

/** Resolves once the informer has listed; rejects with the signal's reason if that comes first. */
function untilSynced(informer: Informer, signal: AbortSignal): Promise<void> {
  if (informer.hasSynced()) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const subscription = informer.synced$.pipe(filter(Boolean), take(1)).subscribe(() => {
      signal.removeEventListener("abort", abort);
      resolve();
    });
    function abort() {
      subscription.unsubscribe();
      reject(signal.reason);
    }
    if (signal.aborted) abort();
    else if (!subscription.closed) signal.addEventListener("abort", abort, { once: true });
  });
}

export class FailureLogs {
  private readonly options: FailureLogsOptions;
  private readonly slots: ReadSlots;

  constructor(options: FailureLogsOptions) {
    this.options = options;
    this.slots = new ReadSlots(options.maxConcurrentReads ?? defaultMaxLogReads);
  }

  /** Whether `verdict` gets a log read: its request asked (`logs`), and it failed or timed out on a resource. */
  wanted(logs: boolean, verdict: ObservationVerdict): boolean {
    return logs && verdict.failure !== undefined && (verdict.outcome === "failed" || verdict.outcome === "timed_out");
  }

  /** The verdict with its failure's log tail or note; the verdict unchanged when there is no container to read. Never rejects. */
  async attach(observationId: string, verdict: ObservationVerdict): Promise<ObservationVerdict> {
    const failure = verdict.failure!;
    const timeoutMs = this.options.timeoutMs ?? defaultLogReadTimeoutMs;
    const signal = AbortSignal.timeout(timeoutMs);
    let objects: readonly [KubeObject | undefined, { replicaSets: ReplicaSet[]; pods: Pod[] }];
    try {
      objects = await this.objectsOf(failure.resource, signal);
    } catch (error) {
      // Kinds that resolved when the observation began resolve again; what is left is the bound.
      this.options.logger.warn({ observationId, err: error }, "cannot read the failed resource's pods for its log tail");
      return verdict;
    }
    const choice = failingContainer(failure, ...objects);
    if (!choice) return verdict;
    if ("note" in choice) return withFailure(verdict, { logNote: choice.note });
    if (!this.options.reader) return withFailure(verdict, { logNote: logNoteOf(choice.read, notAllowedNote) });
    return withFailure(verdict, await this.read(observationId, choice.read, signal, timeoutMs));
  }

  /** The failed resource as its informer holds it, and the pods (and ReplicaSets) of its namespace once their informers listed. */
  private async objectsOf(identity: ResourceIdentity, signal: AbortSignal) {
    const kind = groupKind(identity.apiVersion, identity.kind);
    const object = (await this.cached(identity.apiVersion, identity.kind, signal)).get(identity.namespace, identity.name);
    const listed = async (apiVersion: string, kindName: string) => (await this.cached(apiVersion, kindName, signal)).list(identity.namespace);
    const pods = object && podOwningKinds.has(kind) ? ((await listed("v1", "Pod")) as Pod[]) : [];
    const replicaSets = object && replicaSetOwningKinds.has(kind) ? ((await listed("apps/v1", "ReplicaSet")) as ReplicaSet[]) : [];
    return [object, { replicaSets, pods }] as const;
  }

  private async cached(apiVersion: string, kind: string, signal: AbortSignal) {
    const informer = this.options.kinds.informer(await this.options.kinds.resolve(apiVersion, kind));
    await untilSynced(informer, signal);
    return informer;
  }

  private async read(observationId: string, target: LogTarget, signal: AbortSignal, timeoutMs: number): Promise<Pick<Failure, "logTail" | "logNote">> {
    const limits = this.options.limits ?? logTailLimits;
    const request = { ...target, tailLines: limits.lines + 1, limitBytes: limits.bytes };
    const startedAt = performance.now();
    try {
      const text = await this.slots.run(() => this.options.reader!(request, signal), signal);
      const logTail = logTailOf(target, text, limits);
      const ms = Math.round(performance.now() - startedAt);
      this.options.logger.info({ observationId, pod: target.pod, container: target.container, previous: target.previous, lines: logTail.lines.length, ms }, "container log read");
      return { logTail };
    } catch (error) {
      const note = logNoteOf(target, describeReadError(error, timeoutMs));
      this.options.logger.warn({ observationId, note }, "container log not read");
      return { logNote: note };
    }
  }
}

// The observation reducer (SPEC sections 2, 3, 5, 6): pure functions from a state, one event and
// the time it happened to the next state and what changed. The engine emits an event only for the
// changes returned: a resource whose state or reason moved, a stage reached, the verdict decided.
//
// Every call first fires the timers that fell due by `nowMs`, in the order they fell due, so a
// verdict never depends on how late the engine's timer ran: a budget that ran out before an
// event arrived has run out, and a re-create seen after its grace expired comes too late.
// Rules the reducer keeps whatever the events say:
// - settled stays settled (a Job deleted by ttlSecondsAfterFinished after completing counts);
// - `reached` only grows, one stage event each;
// - the required stage reached ends the observation as succeeded; a resource failing a stage at or
//   below the required one ends it as failed at once; a failure beyond it is recorded, not fatal;
// - outcomes change only through `transition`, so the first terminal outcome is the last.
import { advanceStage, blockedStage, stageRank, stagesBetween, type StageFacts } from "./stages.js";
import { isBootstrapJob } from "./bootstrap.js";
import { isTerminal, transition } from "./outcome.js";
import { failed, pending, readingReasons, type ResourceReading } from "./reading.js";
import type { Failure, ObservationVerdict, Outcome, ResourceVerdict, Stage } from "./schemas.js";
import { formatDuration } from "./text.js";
import type { ObservationChange, ObservationState, ObservationStep, TrackedResource } from "./observation-state.js";
import { cancelMessage, failureLine, progressMessage, successMessage, timeoutLine, type StageCounts } from "./verdict-messages.js";

/** What the engine read from one object of a declared identity. */
export interface ObservedObject {
  readonly uid: string;
  readonly generation?: number | undefined;
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly reading: ResourceReading;
}

interface Draft {
  state: ObservationState;
  changes: ObservationChange[];
}

function factsOf(resource: TrackedResource): StageFacts {
  return { applied: resource.applied, bootstrap: resource.bootstrap, settled: resource.reading.state === "settled" };
}

function resourceVerdict(resource: TrackedResource): ResourceVerdict {
  const { state, reason, message } = resource.reading;
  return reason === undefined ? { identity: resource.identity, state, message } : { identity: resource.identity, state, reason, message };
}

function put(draft: Draft, key: string, next: TrackedResource): void {
  const previous = draft.state.resources.get(key);
  const resources = new Map(draft.state.resources);
  resources.set(key, next);
  draft.state = { ...draft.state, resources };
  if (previous?.reading.state !== next.reading.state || previous.reading.reason !== next.reading.reason) {
    draft.changes.push({ type: "resource", key, resource: resourceVerdict(next) });
  }
}

function counts(state: ObservationState): StageCounts {
  const all = [...state.resources.values()];
  return {
    total: all.length,
    applied: all.filter((r) => r.applied).length,
    bootstrapJobs: all.filter((r) => r.bootstrap).length,
    settled: all.filter((r) => r.reading.state === "settled").length,
  };
}

function decide(draft: Draft, outcome: Outcome, message: string, failure: Failure | undefined, atMs: number): void {
  const next = transition(draft.state.outcome, outcome);
  if (next === draft.state.outcome) return;
  draft.state = { ...draft.state, outcome: next, decision: { message, failure, atMs } };
  draft.changes.push({ type: "verdict", verdict: toVerdict(draft.state) });
}

/** The resources holding back a stage at or below the required one, lowest stage first. */
function blocking(state: ObservationState, which: (resource: TrackedResource) => boolean): { resource: TrackedResource; stage: Stage }[] {
  return [...state.resources.values()]
    .flatMap((resource) => {
      const stage = which(resource) ? blockedStage(factsOf(resource), state.reached) : undefined;
      return stage !== undefined && stageRank(stage) <= stageRank(state.required) ? [{ resource, stage }] : [];
    })
    .toSorted((a, b) => stageRank(a.stage) - stageRank(b.stage));
}

/** Reads the stages off the resources and decides success or failure when one is due. */
function conclude(draft: Draft, atMs: number): void {
  if (isTerminal(draft.state.outcome)) return;
  const reached = advanceStage(draft.state.reached, [...draft.state.resources.values()].map(factsOf));
  for (const stage of stagesBetween(draft.state.reached, reached)) draft.changes.push({ type: "stage", stage });
  draft.state = { ...draft.state, reached };
  const { state } = draft;
  if (stageRank(reached) >= stageRank(state.required)) {
    decide(draft, "succeeded", successMessage(state.deployment, state.required, counts(state)), undefined, atMs);
    return;
  }
  const [first] = blocking(state, (resource) => resource.reading.state === "failed");
  if (first) {
    const { resource, stage } = first;
    const reading = resource.reading;
    const failure: Failure = { stage, resource: resource.identity, reason: reading.reason ?? "Failed", message: reading.message };
    decide(draft, "failed", failureLine(state.deployment, stage, resource.identity, reading), failure, atMs);
  }
}

function timeOut(draft: Draft): void {
  const { state } = draft;
  const budgetMs = state.deadlineMs - state.startedAtMs;
  const outstanding = blocking(state, (resource) => resource.reading.state !== "settled");
  const lines = outstanding.map(({ resource, stage }) => timeoutLine(state.deployment, stage, budgetMs, resource.identity, resource.reading));
  const first = outstanding[0];
  // The resource's own reason, never "deadline exceeded": a timeout must not hide what the cluster said.
  const failure: Failure | undefined = first && {
    stage: first.stage,
    resource: first.resource.identity,
    reason: first.resource.reading.reason ?? "InProgress",
    message: first.resource.reading.message,
  };
  // Nothing outstanding cannot time out (the required stage would have been reached); kept total.
  const message = lines.join("\n") || `deployment ${state.deployment} did not reach ${state.required} within ${formatDuration(budgetMs)}`;
  decide(draft, "timed_out", message, failure, state.deadlineMs);
}

/** When a pending resource's grace runs out: absent since the caches synced, or deleted. */
function graceExpiry(state: ObservationState, resource: TrackedResource): number | undefined {
  if (resource.reading.state !== "pending") return undefined;
  if (resource.deletedAtMs !== undefined) return resource.deletedAtMs + state.absentGraceMs;
  if (resource.uid === undefined && state.cachesSyncedAtMs !== undefined) return state.cachesSyncedAtMs + state.absentGraceMs;
  return undefined;
}

/** Fires every timer due by `nowMs`, earliest first; a grace ending with the budget loses to it. */
function fireTimers(draft: Draft, nowMs: number): void {
  const { deadlineMs, absentGraceMs } = draft.state;
  const due = [...draft.state.resources]
    .flatMap(([key, resource]) => {
      const at = graceExpiry(draft.state, resource);
      return at !== undefined && at <= nowMs && at < deadlineMs ? [{ key, resource, at }] : [];
    })
    .toSorted((a, b) => a.at - b.at);
  for (const { key, resource, at } of due) {
    if (isTerminal(draft.state.outcome)) return;
    const message =
      resource.deletedAtMs !== undefined ? "deleted before it settled" : `not found ${formatDuration(absentGraceMs)} after the caches synced`;
    put(draft, key, { ...resource, applied: false, deletedAtMs: undefined, reading: failed(readingReasons.notFound, message) });
    conclude(draft, at);
  }
  if (nowMs >= draft.state.deadlineMs && !isTerminal(draft.state.outcome)) timeOut(draft);
}

/** Runs one event between timer passes: due timers first, then the event, then any timer it started. */
function step(state: ObservationState, nowMs: number, apply: (draft: Draft) => void): ObservationStep {
  const draft: Draft = { state, changes: [] };
  fireTimers(draft, nowMs);
  if (!isTerminal(draft.state.outcome)) {
    apply(draft);
    conclude(draft, nowMs);
    fireTimers(draft, nowMs);
  }
  return { state: draft.state, changes: draft.changes };
}

/**
 * A reading of the declared object `key` names (identityKey). A different UID than before is a
 * re-create and is followed; any reading ends a deletion's grace. Settled resources ignore it.
 */
export function recordReading(state: ObservationState, key: string, observed: ObservedObject, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const resource = draft.state.resources.get(key);
    if (!resource || resource.reading.state === "settled") return;
    const requested = resource.identity.generation;
    put(draft, key, {
      ...resource,
      uid: observed.uid,
      bootstrap: isBootstrapJob(resource.identity, { metadata: { labels: observed.labels } }),
      // An object without metadata.generation (ConfigMap, Secret) has no spec version to wait for.
      applied: requested === undefined || observed.generation === undefined || observed.generation >= requested,
      deletedAtMs: undefined,
      reading: observed.reading,
    });
  });
}

/**
 * The declared object was deleted. Settled resources keep their verdict; a delete of a UID other
 * than the one followed (an older incarnation) changes nothing; otherwise the grace starts, and a
 * re-create with a new UID inside it is followed, while its end fails the resource NotFound.
 */
export function recordDeletion(state: ObservationState, key: string, uid: string, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const resource = draft.state.resources.get(key);
    if (!resource || resource.reading.state === "settled" || resource.uid !== uid) return;
    const grace = formatDuration(draft.state.absentGraceMs);
    put(draft, key, {
      ...resource,
      applied: false,
      deletedAtMs: nowMs,
      reading: pending(readingReasons.deleted, `deleted; a re-create within ${grace} is followed`),
    });
  });
}

/** The API server refuses stagewatch's own identity the list or watch a resource is read through. */
export interface AccessProblem {
  /** The server's reason: `Forbidden` (RBAC), `Unauthorized` (a credential it no longer accepts). */
  readonly reason: string;
  /** The request refused: `list` or `watch`. */
  readonly verb: string;
  /** The resource refused, plural as RBAC rules name it: `secrets`, or `pods` for a workload's pods. */
  readonly resource: string;
  /** The namespace of the refused request; undefined when it was cluster-wide. */
  readonly namespace?: string | undefined;
  /** The server's own message, which names the user, the verb and the scope. */
  readonly message: string;
}

function accessMessage({ verb, resource, namespace, message }: AccessProblem): string {
  return `stagewatch cannot ${verb} ${resource}${namespace === undefined ? "" : ` in ${namespace}`}: ${message}`;
}

/**
 * stagewatch may not read what `key` names: its kind, or the pods or ReplicaSets a workload owns.
 * Nothing about it can arrive until someone changes RBAC, so waiting out the budget would only
 * hide the cause behind "not seen in the cluster yet": a resource still pending, seen or not,
 * fails at once with the server's reason, and that failure decides the observation like any other
 * (at the first stage it blocks, fatal only at or below the required one). Settled and failed
 * resources keep their verdict.
 */
export function recordAccessProblem(state: ObservationState, key: string, problem: AccessProblem, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const resource = draft.state.resources.get(key);
    if (!resource || resource.reading.state !== "pending") return;
    put(draft, key, { ...resource, deletedAtMs: undefined, reading: failed(problem.reason, accessMessage(problem)) });
  });
}

/** The informers have listed everything: from now on, a resource never seen is counted absent. */
export function markCachesSynced(state: ObservationState, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    if (draft.state.cachesSyncedAtMs === undefined) draft.state = { ...draft.state, cachesSyncedAtMs: nowMs };
  });
}

/** Time passed with no event: fires grace and budget timers. */
export function advanceClock(state: ObservationState, nowMs: number): ObservationStep {
  return step(state, nowMs, () => undefined);
}

export function cancelObservation(state: ObservationState, reason: string | undefined, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const { deployment, required, reached } = draft.state;
    decide(draft, "cancelled", cancelMessage(deployment, required, reached, reason), undefined, nowMs);
  });
}

/** The earliest time the engine must call advanceClock; undefined once decided. */
export function nextWakeAt(state: ObservationState): number | undefined {
  if (isTerminal(state.outcome)) return undefined;
  const graces = [...state.resources.values()].map((resource) => graceExpiry(state, resource)).filter((at) => at !== undefined);
  return Math.min(state.deadlineMs, ...graces);
}

export function toVerdict(state: ObservationState): ObservationVerdict {
  const { decision } = state;
  return {
    observationId: state.observationId,
    key: state.key,
    deployment: state.deployment,
    required: state.required,
    reached: state.reached,
    outcome: state.outcome,
    ...(decision?.failure && { failure: decision.failure }),
    resources: [...state.resources.values()].map(resourceVerdict),
    message: decision?.message ?? progressMessage(state.deployment, state.required, state.reached, counts(state)),
    startedAt: new Date(state.startedAtMs).toISOString(),
    deadline: new Date(state.deadlineMs).toISOString(),
    ...(decision && { decidedAt: new Date(decision.atMs).toISOString() }),
  };
}

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
// A call costs the same with 1,000 declared resources as with 10 (a request may declare 1,000):
// stages and counts come from the state's tally, timers from it and the few deletion graces.
// Only a grace ending, the budget running out and toVerdict read every resource.
import { advanceStageBy, blockedStage, stageRank, stagesBetween } from "../contract/stages.js";
import { isBootstrapJob } from "./bootstrap.js";
import { withLoadBalancerChoice } from "./loadBalancerChoice.js";
import { readingAtGraceEnd, withGrace } from "./reasonGrace.js";
import { isTerminal, transition } from "../contract/outcome.js";
import { failed, pending, readingReasons, shownMessage, type ResourceReading } from "../rules/reading.js";
import { compareWithHistory } from "../history/history.js";
import type { Failure, HistoryOutlook, ObservationVerdict, Outcome, ResourceIdentity, Stage } from "../contract/schemas.js";
import { formatDuration } from "../text/text.js";
import type { MeasuredValue } from "../analysis/measurements.js";
import {
  absenceOf,
  factsOf,
  replaceResource,
  resourceVerdict,
  type ObservationChange,
  type ObservationState,
  type ObservationStep,
  type TrackedResource,
} from "./observationState.js";
import { cancelMessage, failureLine, progressMessage, successMessage, timeoutLine, type StageCounts } from "./verdictMessages.js";
import {
  analysesPassed,
  dueMeasurements,
  measureIntoWindow,
  openWindow,
  problemFailure,
  readIntoWindow,
  verificationOf,
  windowSuccessMessage,
  windowTimeoutDetail,
  type DueMeasurement,
  type SoakObject,
} from "./verificationWindow.js";

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
  /** The resource written since the last conclude: every put is followed by one, so one slot holds it. */
  touched?: string | undefined;
  /** A write changed something besides a warning. */
  progressed?: boolean;
  /** A write changed a warning and nothing else. */
  warned?: boolean;
}

function sameWarning({ warning: a }: ResourceReading, { warning: b }: ResourceReading): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.reason === b.reason && a.count === b.count && a.lastSeen === b.lastSeen && a.name === b.name && a.message === b.message;
}

/** Every field of TrackedResource but the reading's warning (a clock by when it ends). */
function sameButWarning(previous: TrackedResource, next: TrackedResource): boolean {
  return (
    previous.identity === next.identity &&
    previous.bootstrap === next.bootstrap &&
    previous.uid === next.uid &&
    previous.applied === next.applied &&
    previous.deletedAtMs === next.deletedAtMs &&
    previous.clock?.endMs === next.clock?.endMs &&
    previous.scaled === next.scaled &&
    previous.reading.state === next.reading.state &&
    previous.reading.reason === next.reading.reason &&
    previous.reading.message === next.reading.message
  );
}

/**
 * A write that changes nothing is skipped, and the state kept. A progress event goes out when the
 * state or reason moves, when the workload was scaled, or when the newest warning's reason does; a
 * warning repeating changes its count in the state (what get and a timeout show) but publishes
 * nothing: the same text again and again is noise a subscriber pays for.
 */
function put(draft: Draft, key: string, next: TrackedResource): void {
  const previous = draft.state.resources.get(key);
  const same = previous !== undefined && sameButWarning(previous, next);
  if (same && sameWarning(previous.reading, next.reading)) return;
  draft.state = replaceResource(draft.state, key, next);
  draft.touched = key;
  if (same) draft.warned = true;
  else draft.progressed = true;
  if (
    previous?.reading.state !== next.reading.state ||
    previous.reading.reason !== next.reading.reason ||
    previous.scaled !== next.scaled ||
    previous.reading.warning?.reason !== next.reading.warning?.reason
  ) {
    draft.changes.push({ type: "resource", key, resource: resourceVerdict(next) });
  }
}

function counts(state: ObservationState): StageCounts {
  const { applied, bootstrapJobs, settled } = state.tally;
  return { total: state.resources.size, applied, bootstrapJobs, settled };
}

function decide(draft: Draft, outcome: Outcome, message: string, failure: Failure | undefined, atMs: number): void {
  const next = transition(draft.state.outcome, outcome);
  if (next === draft.state.outcome) return;
  draft.state = { ...draft.state, outcome: next, decision: { message, failure, atMs } };
  draft.changes.push({ type: "verdict", verdict: toVerdict(draft.state) });
}

/** The stage at or below the required one that `resource` holds back, if any. */
function requiredStageBlocked(state: ObservationState, resource: TrackedResource): Stage | undefined {
  const stage = blockedStage(factsOf(resource), state.reached);
  return stage !== undefined && stageRank(stage) <= stageRank(state.required) ? stage : undefined;
}

/** The resources holding back a stage at or below the required one, lowest stage first. */
function blocking(state: ObservationState, which: (resource: TrackedResource) => boolean): { resource: TrackedResource; stage: Stage }[] {
  return [...state.resources.values()]
    .flatMap((resource) => {
      const stage = which(resource) ? requiredStageBlocked(state, resource) : undefined;
      return stage === undefined ? [] : [{ resource, stage }];
    })
    .toSorted((a, b) => stageRank(a.stage) - stageRank(b.stage));
}

/**
 * Reads the stages off the tally and decides success or failure when one is due. Only the resource
 * written since the last call can newly fail the observation: after every call that leaves it in
 * progress no failed resource blocks a stage at or below the required one, and one left alone
 * never starts to, since `reached` only grows and the stage a resource blocks grows with it.
 */
function conclude(draft: Draft, atMs: number): void {
  const { touched } = draft;
  draft.touched = undefined;
  if (isTerminal(draft.state.outcome)) return;
  const reached = advanceStageBy(draft.state.reached, draft.state.tally.holdouts);
  if (reached !== draft.state.reached) {
    for (const stage of stagesBetween(draft.state.reached, reached)) draft.changes.push({ type: "stage", stage });
    draft.state = { ...draft.state, reached };
  }
  const { state } = draft;
  // `healthy` under `require: verified` opens the window; the window's end reaches `verified` (fireTimers).
  if (reached === "healthy" && state.verify && !state.window) {
    draft.state = { ...state, window: openWindow(state.verify, atMs) };
    return;
  }
  if (state.required !== "verified" && stageRank(reached) >= stageRank(state.required)) {
    decide(draft, "succeeded", successMessage(state.deployment, state.required, counts(state)), undefined, atMs);
    return;
  }
  const resource = touched === undefined ? undefined : state.resources.get(touched);
  const stage = resource?.reading.state === "failed" ? requiredStageBlocked(state, resource) : undefined;
  if (resource && stage) {
    const reading = resource.reading;
    const failure: Failure = { stage, resource: resource.identity, reason: reading.reason ?? "Failed", message: shownMessage(reading) };
    decide(draft, "failed", failureLine(state.deployment, stage, resource.identity, reading), failure, atMs);
  }
}

function timeOut(draft: Draft): void {
  const { state } = draft;
  const budgetMs = state.deadlineMs - state.startedAtMs;
  if (state.window && state.verify) {
    const detail = windowTimeoutDetail(state.verify, state.window, state.deadlineMs);
    const failure: Failure = { stage: "verified", resource: windowResource(state), reason: "VerificationWindowOpen", message: detail };
    decide(draft, "timed_out", `deployment ${state.deployment} did not reach verified within ${formatDuration(budgetMs)}: ${detail}`, failure, state.deadlineMs);
    return;
  }
  const outstanding = blocking(state, (resource) => resource.reading.state !== "settled");
  const lines = outstanding.map(({ resource, stage }) => timeoutLine(state.deployment, stage, budgetMs, resource.identity, resource.reading));
  const first = outstanding[0];
  // The resource's own reason, never "deadline exceeded": a timeout must not hide what the cluster said.
  const failure: Failure | undefined = first && {
    stage: first.stage,
    resource: first.resource.identity,
    reason: first.resource.reading.reason ?? "InProgress",
    message: shownMessage(first.resource.reading),
  };
  // Nothing outstanding cannot time out (the required stage would have been reached); kept total.
  const message = lines.join("\n") || `deployment ${state.deployment} did not reach ${state.required} within ${formatDuration(budgetMs)}`;
  decide(draft, "timed_out", message, failure, state.deadlineMs);
}

/** When the absence grace of the resources never seen runs out: it counts from the caches syncing. */
function absenceGraceEnd(state: ObservationState): number | undefined {
  return state.cachesSyncedAtMs === undefined ? undefined : state.cachesSyncedAtMs + state.absentGraceMs;
}

/** When a pending resource's grace runs out: deleted, or absent since the caches synced. */
function graceEnd(state: ObservationState, key: string, resource: TrackedResource): number | undefined {
  return state.deletionGraceEnds.get(key) ?? (absenceOf(resource) === "unseen" ? absenceGraceEnd(state) : undefined);
}

/** The earliest grace end of all resources: absence and deletion graces, and failOn reasons' (reasonGrace.ts). */
function earliestGraceEnd(state: ObservationState): number | undefined {
  let earliest = state.tally.unseen > 0 ? absenceGraceEnd(state) : undefined;
  for (const ends of [state.deletionGraceEnds, state.reasonGraceEnds]) {
    for (const end of ends.values()) if (earliest === undefined || end < earliest) earliest = end;
  }
  return earliest;
}

interface DueGrace {
  readonly key: string;
  readonly at: number;
  /** The resource as the grace's end leaves it. */
  readonly next: TrackedResource;
}

/** The graces of `resource` that ended by `nowMs`, before the budget: at most one of each kind. */
function dueGraces(state: ObservationState, key: string, resource: TrackedResource, nowMs: number): DueGrace[] {
  const due: DueGrace[] = [];
  const isDue = (at: number | undefined): at is number => at !== undefined && at <= nowMs && at < state.deadlineMs;
  const absentAt = graceEnd(state, key, resource);
  if (isDue(absentAt)) {
    const message =
      resource.deletedAtMs !== undefined ? "deleted before it settled" : `not found ${formatDuration(state.absentGraceMs)} after the caches synced`;
    const reading = failed(readingReasons.notFound, message);
    due.push({ key, at: absentAt, next: { ...resource, applied: false, deletedAtMs: undefined, clock: undefined, reading } });
  }
  const { clock } = resource;
  if (clock !== undefined && isDue(clock.endMs)) {
    due.push({ key, at: clock.endMs, next: { ...resource, clock: undefined, reading: readingAtGraceEnd(clock) } });
  }
  return due;
}

/** Ends every grace due by `nowMs`, earliest first, ties in request order. */
function fireGraces(draft: Draft, nowMs: number): void {
  const due = [...draft.state.resources]
    .flatMap(([key, resource]) => dueGraces(draft.state, key, resource, nowMs))
    .toSorted((a, b) => a.at - b.at);
  for (const { key, at, next } of due) {
    if (isTerminal(draft.state.outcome)) return;
    const current = draft.state.resources.get(key);
    // A resource has one reading: the first grace to end on it decides, a later one finds it changed.
    if (current?.reading.state !== "pending") continue;
    put(draft, key, next);
    conclude(draft, at);
  }
}

/** The resource a verification failure or timeout names when no pod does: the first whose pods were read, else the first declared. */
function windowResource(state: ObservationState): ResourceIdentity {
  return windowTracked(state).identity;
}

function windowTracked(state: ObservationState): TrackedResource {
  const key = [...(state.window?.podsByResource.keys() ?? [])][0] ?? [...state.resources.keys()][0]!;
  return state.resources.get(key)!;
}

/**
 * The window ended with no problem and every analysis passed: `verified` is reached (always the
 * required stage), at the window's end or, when an analysis's last measurement came after it, then.
 */
function endWindow(draft: Draft, atMs: number): void {
  const { state } = draft;
  if (!state.window || !state.verify || !analysesPassed(state.verify, state.window)) return;
  draft.changes.push({ type: "stage", stage: "verified" });
  draft.state = { ...state, reached: "verified" };
  decide(draft, "succeeded", windowSuccessMessage(state.deployment, state.verify, state.window), undefined, Math.max(atMs, state.window.endsAtMs));
}

/**
 * Fires every timer due by `nowMs`; a grace or a window ending with the budget loses to it. The
 * scan over all resources runs only when some grace has ended, and each ends at most once (its
 * resource fails).
 */
function fireTimers(draft: Draft, nowMs: number): void {
  const earliest = earliestGraceEnd(draft.state);
  if (earliest !== undefined && earliest <= nowMs && earliest < draft.state.deadlineMs) fireGraces(draft, nowMs);
  const windowEnd = draft.state.window?.endsAtMs;
  if (windowEnd !== undefined && windowEnd <= nowMs && windowEnd < draft.state.deadlineMs && !isTerminal(draft.state.outcome)) endWindow(draft, windowEnd);
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
  // Stall notices wait for progress: a warning repeating is the cluster retrying, not moving.
  const progressed = draft.state !== state && (draft.progressed === true || draft.warned !== true);
  return { state: draft.state, changes: draft.changes, progressed };
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
    const { replicas } = observed.reading;
    // A reading without a count (the controller has not observed the new spec yet) keeps the last
    // one; a re-created object (another UID) starts anew, as it was not scaled but replaced.
    const same = resource.uid === observed.uid;
    const known = same ? resource.replicas : undefined;
    const scaled = replicas !== undefined && known !== undefined && replicas !== known ? { from: known, to: replicas } : same ? resource.scaled : undefined;
    const graced = withGrace(withLoadBalancerChoice(observed.reading, draft.state.loadBalancerAddress), resource.clock, draft.state.graces, nowMs);
    put(draft, key, {
      ...resource,
      uid: observed.uid,
      bootstrap: isBootstrapJob(resource.identity, { metadata: { labels: observed.labels } }),
      // An object without metadata.generation (ConfigMap, Secret) has no spec version to wait for.
      applied: requested === undefined || observed.generation === undefined || observed.generation >= requested,
      deletedAtMs: undefined,
      replicas: replicas ?? known,
      scaled,
      reading: scaled ? { ...graced.reading, scaled } : graced.reading,
      clock: graced.clock,
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
      clock: undefined,
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
    put(draft, key, { ...resource, deletedAtMs: undefined, clock: undefined, reading: failed(problem.reason, accessMessage(problem)) });
  });
}

/**
 * A settled workload read again inside the verification window: its new revision's pods are
 * checked, and the first problem fails `verified` at once. Before the window (or without one) and
 * for resources that did not settle it changes nothing: a resource is judged by its rule until it
 * settles, and by the window after.
 */
export function recordSoakReading(state: ObservationState, key: string, read: SoakObject, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const { window, verify } = draft.state;
    const resource = draft.state.resources.get(key);
    if (!window || !verify || resource?.reading.state !== "settled") return;
    const next = readIntoWindow(verify, window, key, read, nowMs);
    if (next.window === window) return;
    draft.state = { ...draft.state, window: next.window };
    if (next.problem) {
      const failure = problemFailure(next.problem, window, resource.identity);
      decide(draft, "failed", `deployment ${draft.state.deployment} cannot reach verified: ${failure.message}`, failure, nowMs);
    }
  });
}

/**
 * A measurement of one of the window's analyses (the engine queries on each analysis's interval).
 * A measurement past the analysis's limits fails `verified` at once; the last one it needed, after
 * the window's end, reaches `verified` then.
 */
export function recordMeasurement(state: ObservationState, analysis: string, measured: MeasuredValue, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const { window, verify } = draft.state;
    if (!window || !verify) return;
    const next = measureIntoWindow(verify, window, analysis, measured);
    if (next.window === window) return;
    draft.state = { ...draft.state, window: next.window };
    if (next.failure) {
      const failure: Failure = { stage: "verified", resource: windowResource(draft.state), reason: next.failure.reason, message: next.failure.message };
      decide(draft, "failed", `deployment ${draft.state.deployment} cannot reach verified: ${next.failure.message}`, failure, nowMs);
      return;
    }
    draft.changes.push({ type: "measurement", resource: resourceVerdict(windowTracked(draft.state)), verification: verificationOf(verify, next.window) });
    if (nowMs >= window.endsAtMs) endWindow(draft, nowMs);
  });
}

/** The informers have listed everything: from now on, a resource never seen is counted absent. */
export function markCachesSynced(state: ObservationState, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    if (draft.state.cachesSyncedAtMs === undefined) draft.state = { ...draft.state, cachesSyncedAtMs: nowMs };
  });
}

/** Time passed with no event: fires grace (absence, deletion, failOn reasons) and budget timers. */
export function advanceClock(state: ObservationState, nowMs: number): ObservationStep {
  return step(state, nowMs, () => undefined);
}

export function cancelObservation(state: ObservationState, reason: string | undefined, nowMs: number): ObservationStep {
  return step(state, nowMs, (draft) => {
    const { deployment, required, reached } = draft.state;
    decide(draft, "cancelled", cancelMessage(deployment, required, reached, reason), undefined, nowMs);
  });
}

/** The measurements the engine is to take next, one an analysis still running; none once decided or before the window's subject is read. */
export function nextMeasurements(state: ObservationState): DueMeasurement[] {
  if (isTerminal(state.outcome) || !state.window || !state.verify) return [];
  return dueMeasurements(state.verify, state.window, state.deployment);
}

/** The earliest time the engine must call advanceClock; undefined once decided. */
export function nextWakeAt(state: ObservationState): number | undefined {
  if (isTerminal(state.outcome)) return undefined;
  // The window's end matters once every analysis passed; before, the last measurement ends it.
  const windowEnd = state.window && state.verify && analysesPassed(state.verify, state.window) ? state.window.endsAtMs : Number.POSITIVE_INFINITY;
  return Math.min(state.deadlineMs, earliestGraceEnd(state) ?? Number.POSITIVE_INFINITY, windowEnd);
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
    ...(state.tenant !== undefined && { tenant: state.tenant }),
    ...(state.outlook && { history: historyOf(state) }),
    ...(state.window && state.verify && { verification: verificationOf(state.verify, state.window) }),
  };
}

/** The outlook, with a success ranked among the earlier rollouts at its required stage. */
function historyOf(state: ObservationState): HistoryOutlook | undefined {
  const { outlook, decision } = state;
  if (!outlook || state.outcome !== "succeeded" || !decision) return outlook;
  const comparison = compareWithHistory(outlook, state.required, (decision.atMs - state.startedAtMs) / 1000);
  return comparison ? { ...outlook, comparison } : outlook;
}

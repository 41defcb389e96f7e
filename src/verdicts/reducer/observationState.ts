// What the reducer keeps for one observation, and how one starts. The live engine holds one state
// per observation, hands it to the reducer with each watch event or timer, and keeps what comes
// back. Times are plain epoch milliseconds passed in by the caller.
//
// Ownership: a step supersedes the state it is given. It writes `resources` (and the deletion
// graces) in place, through replaceResource alone, so that an event costs the same with 1,000
// declared resources as with 10 rather than a copy of the map; every other field is replaced,
// never written. A caller keeps only the state a step returns and never reads or steps one it has
// passed on: the old one shares the maps. A step that changes nothing returns the state it got.
// The tally and the grace ends (deletions', failOn reasons') are kept in step with `resources`
// here, so no event has to count.
import { clusterScopedKinds, podOwningKinds } from "../../kube/kindFacts.js";
import { groupKind, identityKey } from "../contract/kinds.js";
import type { LoadBalancerAddress } from "./loadBalancerChoice.js";
import { isBootstrapJob } from "./bootstrap.js";
import { pending, shownMessage, type ResourceReading, type ScaleChange } from "../rules/reading.js";
import { addHoldouts, noHoldouts, type StageFacts, type StageHoldouts } from "../contract/stages.js";
import type {
  Failure,
  FieldIssue,
  HistoryOutlook,
  ObservationRequest,
  ObservationVerdict,
  Outcome,
  ReachedStage,
  ResourceIdentity,
  ResourceVerdict,
  Stage,
  Verification,
} from "../contract/schemas.js";
import type { Parsed } from "../contract/validation.js";
import { failOnPolicy, type FailOnPolicy } from "../contract/failOn.js";
import { defaultFailOn } from "../contract/schemas.js";
import type { ReasonClock } from "./reasonGrace.js";
import { planVerify, type OpenWindow, type VerifyPlan } from "./verificationWindow.js";
import type { AnalysisTemplate } from "../analysis/analysisTemplates.js";

export interface TrackedResource {
  /** The declared identity, its namespace resolved (defaultNamespace, or none when cluster-scoped). */
  readonly identity: ResourceIdentity;
  /** Flagged in the request, or labelled stagewatch.io/bootstrap on the object last seen. */
  readonly bootstrap: boolean;
  /** The UID last seen; undefined while never seen. */
  readonly uid?: string | undefined;
  /** Exists at or after the requested generation. */
  readonly applied: boolean;
  /** Set by a delete event; a reading (a re-create) within the grace clears it. */
  readonly deletedAtMs?: number | undefined;
  readonly reading: ResourceReading;
  /** A failOn reason within its grace (reasonGrace.ts); the reading is pending meanwhile. */
  readonly clock?: ReasonClock | undefined;
  /** The replica count its controller last reconciled to, as read (`ResourceReading.replicas`); kept through readings without one. */
  readonly replicas?: number | undefined;
  /** The newest change of `replicas` during the observation: given to the rule, and said in the reading's message. */
  readonly scaled?: ScaleChange | undefined;
}

export function factsOf(resource: TrackedResource): StageFacts {
  return { applied: resource.applied, bootstrap: resource.bootstrap, settled: resource.reading.state === "settled" };
}

/** Counts over `resources`: what the stages and the verdict messages need, without a scan. */
export interface ResourceTally {
  readonly applied: number;
  readonly settled: number;
  readonly bootstrapJobs: number;
  readonly holdouts: StageHoldouts;
  /** Pending and never seen: each fails NotFound when the absence grace after the caches synced ends. */
  readonly unseen: number;
}

/** A pending resource waits out the absence grace if it was deleted, or if it was never seen. */
export function absenceOf(resource: TrackedResource): "deleted" | "unseen" | undefined {
  if (resource.reading.state !== "pending") return undefined;
  if (resource.deletedAtMs !== undefined) return "deleted";
  return resource.uid === undefined ? "unseen" : undefined;
}

function addToTally(tally: ResourceTally, resource: TrackedResource, sign: 1 | -1): ResourceTally {
  const count = (holds: boolean) => (holds ? sign : 0);
  return {
    applied: tally.applied + count(resource.applied),
    settled: tally.settled + count(resource.reading.state === "settled"),
    bootstrapJobs: tally.bootstrapJobs + count(resource.bootstrap),
    holdouts: addHoldouts(tally.holdouts, factsOf(resource), sign),
    unseen: tally.unseen + count(absenceOf(resource) === "unseen"),
  };
}

const emptyTally: ResourceTally = { applied: 0, settled: 0, bootstrapJobs: 0, holdouts: noHoldouts, unseen: 0 };

export interface Decision {
  readonly message: string;
  readonly failure?: Failure | undefined;
  readonly atMs: number;
}

export interface ObservationState {
  readonly observationId: string;
  /** The tenant that asked (with a tenants file): in its verdict and on its events' subjects. */
  readonly tenant?: string | undefined;
  readonly key: string;
  readonly deployment: string;
  readonly required: Stage;
  /** Every reason that is terminal, at once or after its grace: what the rules are given. */
  readonly failOn: ReadonlySet<string>;
  /** Each failOn reason's grace in ms (0: at once), with the other word of the same fact (failOn.ts). */
  readonly graces: FailOnPolicy;
  /** The failOn reasons with a grace, for the rules (RuleInput.graced). */
  readonly graced: ReadonlySet<string>;
  /** Whether a LoadBalancer Service waits for its address (loadBalancerChoice.ts). */
  readonly loadBalancerAddress: LoadBalancerAddress;
  readonly absentGraceMs: number;
  readonly startedAtMs: number;
  readonly deadlineMs: number;
  /** When the engine's informers first synced: the absence grace counts from here. */
  readonly cachesSyncedAtMs?: number | undefined;
  /** By identity key, in request order. Written in place by replaceResource (see the top of this file). */
  readonly resources: ReadonlyMap<string, TrackedResource>;
  readonly tally: ResourceTally;
  /**
   * When each deleted, still pending resource's grace ends, by identity key. Holds only what was
   * deleted within the last grace (10 s by default), so finding the earliest end scans a handful.
   */
  readonly deletionGraceEnds: ReadonlyMap<string, number>;
  /** When each failOn reason within its grace ends, by identity key: one a resource whose reading it holds back. */
  readonly reasonGraceEnds: ReadonlyMap<string, number>;
  /** Never goes back: a stage once reached was reached. */
  readonly reached: ReachedStage;
  readonly outcome: Outcome;
  /** Set with the terminal outcome. */
  readonly decision?: Decision | undefined;
  /** What the deployment's earlier observations took, read when this one began (history.ts). */
  readonly outlook?: HistoryOutlook | undefined;
  /** With `require: verified`: the request's `verify`. */
  readonly verify?: VerifyPlan | undefined;
  /** The verification window, from the moment `healthy` was reached under `require: verified`. */
  readonly window?: OpenWindow | undefined;
}

/** What a reducer call changed, for subscribers: emitted only on real transitions. */
export type ObservationChange =
  | { readonly type: "resource"; readonly key: string; readonly resource: ResourceVerdict }
  | { readonly type: "stage"; readonly stage: Stage }
  /** A measurement of the verification window's analyses: the workload it is about and the window as it stands. */
  | { readonly type: "measurement"; readonly resource: ResourceVerdict; readonly verification: Verification }
  | { readonly type: "verdict"; readonly verdict: ObservationVerdict };

/** A resource as verdicts and events show it. */
export function resourceVerdict({ identity, reading }: TrackedResource): ResourceVerdict {
  return {
    identity,
    state: reading.state,
    ...(reading.reason !== undefined && { reason: reading.reason }),
    message: shownMessage(reading),
    ...(reading.warning && { warning: reading.warning }),
    ...(reading.images && { images: [...reading.images] }),
  };
}

export interface ObservationStep {
  readonly state: ObservationState;
  readonly changes: readonly ObservationChange[];
  /** The state changed by more than a warning's repeat (what resets the stall clock). */
  readonly progressed: boolean;
}

export type ClusterScope = (groupKind: string) => boolean;

const builtInScope: ClusterScope = (kind) => clusterScopedKinds.has(kind);

/**
 * The identities as observation reads them: a namespaced resource without a namespace takes the
 * request's defaultNamespace (where `kubectl apply` put it); a cluster-scoped one loses any
 * namespace written on it (the API server ignores it). `isClusterScoped` comes from discovery
 * for custom kinds; without it, unknown kinds count as namespaced, as most custom resources are.
 * Two entries naming the same object are an error: one object cannot be declared twice.
 */
export function resolveNamespaces(request: ObservationRequest, isClusterScoped: ClusterScope = builtInScope): Parsed<ResourceIdentity[]> {
  const issues: FieldIssue[] = [];
  const firstIndex = new Map<string, number>();
  const resolved = request.resources.map((identity, index) => {
    const clusterScoped = isClusterScoped(groupKind(identity.apiVersion, identity.kind));
    const { namespace: _declared, ...rest } = identity;
    const namespace = clusterScoped ? undefined : (identity.namespace ?? request.defaultNamespace);
    if (!clusterScoped && namespace === undefined) {
      issues.push({
        path: `resources[${index}].namespace`,
        message: `required: a namespaced ${identity.kind} needs a namespace or the request's defaultNamespace`,
      });
    }
    const out: ResourceIdentity = namespace === undefined ? rest : { ...rest, namespace };
    const key = identityKey(out);
    const earlier = firstIndex.get(key);
    if (earlier !== undefined) issues.push({ path: `resources[${index}]`, message: `declares the same object as resources[${earlier}]` });
    else firstIndex.set(key, index);
    return out;
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: resolved };
}

export interface StartObservationInput {
  readonly observationId: string;
  /** Parsed with the ObservationRequest schema (defaults applied). */
  readonly request: ObservationRequest;
  readonly startedAtMs: number;
  /** From budgetDeadline at acceptance, persisted with the observation. */
  readonly deadlineMs: number;
  readonly isClusterScoped?: ClusterScope;
  /** The caller's tenant; undefined without a tenants file. */
  readonly tenant?: string | undefined;
  /** The deployment's history as the observation begins; none for a deployment never observed. */
  readonly outlook?: HistoryOutlook | undefined;
  /** The service's metric checks (serve --analyses), by name: what `verify.analyses` may name. */
  readonly analysisTemplates?: ReadonlyMap<string, AnalysisTemplate> | undefined;
}

export const notSeenYet: ResourceReading = pending(undefined, "not seen in the cluster yet");

export function startObservation(input: StartObservationInput): Parsed<ObservationState> {
  const { request } = input;
  const identities = resolveNamespaces(request, input.isClusterScoped);
  if (!identities.ok) return identities;
  const ownsPods = request.resources.some((identity) => podOwningKinds.has(groupKind(identity.apiVersion, identity.kind)));
  const verify = request.verify && planVerify(request.verify, input.analysisTemplates ?? new Map(), ownsPods);
  if (verify && !verify.ok) return verify;
  // The service writes its own default (serve --fail-on) into the request it accepts and records.
  const graces = failOnPolicy(request.failOn ?? defaultFailOn);
  const resources = new Map<string, TrackedResource>(
    identities.value.map((identity) => [
      identityKey(identity),
      { identity, bootstrap: isBootstrapJob(identity), applied: false, reading: notSeenYet },
    ]),
  );
  return {
    ok: true,
    value: {
      tally: [...resources.values()].reduce((tally, resource) => addToTally(tally, resource, 1), emptyTally),
      deletionGraceEnds: new Map(),
      reasonGraceEnds: new Map(),
      observationId: input.observationId,
      ...(input.tenant !== undefined && { tenant: input.tenant }),
      key: request.key,
      deployment: request.deployment,
      required: request.require,
      failOn: new Set(graces.keys()),
      graces,
      graced: new Set([...graces].flatMap(([reason, ms]) => (ms > 0 ? [reason] : []))),
      loadBalancerAddress: request.loadBalancerAddress ?? "wait",
      absentGraceMs: request.absentGraceSeconds * 1000,
      startedAtMs: input.startedAtMs,
      deadlineMs: input.deadlineMs,
      resources,
      reached: "none",
      outcome: "in_progress",
      ...(input.outlook && { outlook: input.outlook }),
      ...(verify && { verify: verify.value }),
    },
  };
}

/**
 * The one write to a state's resources: `key` (declared) takes `next` in place, the tally and the
 * deletion graces follow it. Returns the state that supersedes `state`.
 */
export function replaceResource(state: ObservationState, key: string, next: TrackedResource): ObservationState {
  const previous = state.resources.get(key);
  if (previous === undefined) throw new RangeError(`${key} is not declared in observation ${state.observationId}`);
  // The maps are the state's own, created by startObservation; ReadonlyMap keeps every caller but this one from writing.
  (state.resources as Map<string, TrackedResource>).set(key, next);
  const graceEnds = state.deletionGraceEnds as Map<string, number>;
  const deletedAtMs = absenceOf(next) === "deleted" ? next.deletedAtMs : undefined;
  if (deletedAtMs === undefined) graceEnds.delete(key);
  else graceEnds.set(key, deletedAtMs + state.absentGraceMs);
  const reasonEnds = state.reasonGraceEnds as Map<string, number>;
  if (next.clock === undefined) reasonEnds.delete(key);
  else reasonEnds.set(key, next.clock.endMs);
  return { ...state, tally: addToTally(addToTally(state.tally, previous, -1), next, 1) };
}

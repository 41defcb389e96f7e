// What the reducer keeps for one observation, and how one starts. The state is an immutable value:
// the live engine holds one per observation, hands it to the reducer with each watch event or
// timer, and keeps what comes back. Times are plain epoch milliseconds passed in by the caller.
import { clusterScopedKinds, groupKind, identityKey } from "./kinds.js";
import { isBootstrapJob } from "./bootstrap.js";
import { pending, type ResourceReading } from "./reading.js";
import type {
  Failure,
  FieldIssue,
  ObservationRequest,
  ObservationVerdict,
  Outcome,
  ReachedStage,
  ResourceIdentity,
  ResourceVerdict,
  Stage,
} from "./schemas.js";
import type { Parsed } from "./validation.js";

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
}

export interface Decision {
  readonly message: string;
  readonly failure?: Failure | undefined;
  readonly atMs: number;
}

export interface ObservationState {
  readonly observationId: string;
  readonly key: string;
  readonly deployment: string;
  readonly required: Stage;
  readonly failOn: ReadonlySet<string>;
  readonly absentGraceMs: number;
  readonly startedAtMs: number;
  readonly deadlineMs: number;
  /** When the engine's informers first synced: the absence grace counts from here. */
  readonly cachesSyncedAtMs?: number | undefined;
  /** By identity key, in request order. */
  readonly resources: ReadonlyMap<string, TrackedResource>;
  /** Never goes back: a stage once reached was reached. */
  readonly reached: ReachedStage;
  readonly outcome: Outcome;
  /** Set with the terminal outcome. */
  readonly decision?: Decision | undefined;
}

/** What a reducer call changed, for subscribers: emitted only on real transitions. */
export type ObservationChange =
  | { readonly type: "resource"; readonly key: string; readonly resource: ResourceVerdict }
  | { readonly type: "stage"; readonly stage: Stage }
  | { readonly type: "verdict"; readonly verdict: ObservationVerdict };

export interface ObservationStep {
  readonly state: ObservationState;
  readonly changes: readonly ObservationChange[];
}

/**
 * When the budget runs out: `timeoutSeconds` after `nowMs` (the moment the request was accepted)
 * or the absolute `deadline`, whichever comes first. The engine stores the result with the
 * observation so that a restart never restarts the clock.
 */
export function budgetDeadline(request: Pick<ObservationRequest, "timeoutSeconds" | "deadline">, nowMs: number): number {
  const candidates: number[] = [];
  if (request.timeoutSeconds !== undefined) candidates.push(nowMs + request.timeoutSeconds * 1000);
  if (request.deadline !== undefined) candidates.push(Date.parse(request.deadline));
  // The request schema requires one of them; a request without either has no time at all.
  return candidates.length === 0 ? nowMs : Math.min(...candidates);
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
}

export const notSeenYet: ResourceReading = pending(undefined, "not seen in the cluster yet");

export function startObservation(input: StartObservationInput): Parsed<ObservationState> {
  const { request } = input;
  const identities = resolveNamespaces(request, input.isClusterScoped);
  if (!identities.ok) return identities;
  const resources = new Map<string, TrackedResource>(
    identities.value.map((identity) => [
      identityKey(identity),
      { identity, bootstrap: isBootstrapJob(identity), applied: false, reading: notSeenYet },
    ]),
  );
  return {
    ok: true,
    value: {
      observationId: input.observationId,
      key: request.key,
      deployment: request.deployment,
      required: request.require,
      failOn: new Set(request.failOn),
      absentGraceMs: request.absentGraceSeconds * 1000,
      startedAtMs: input.startedAtMs,
      deadlineMs: input.deadlineMs,
      resources,
      reached: "none",
      outcome: "in_progress",
    },
  };
}

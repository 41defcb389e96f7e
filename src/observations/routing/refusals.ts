// Which declared resources a refused informer keeps an observation from reading. A resource is
// read through the informer of its own kind and, for a workload, through those of what it owns:
// its pods, and a Deployment's ReplicaSets too. The engine hands each one found to the reducer
// (recordAccessProblem), which fails it if it is still pending.
import type { InformerProblem, ResourceMapping } from "../../streams/index.js";
import { podOwningKinds, replicaSetOwningKinds } from "../../kube/kindFacts.js";
import { groupKind, type AccessProblem, type ObservationState } from "../../verdicts/index.js";

/** Whether a declared resource of `declaredKind` is read through the informer of `informerKind`. */
export function readsThrough(declaredKind: string, informerKind: string): boolean {
  if (declaredKind === informerKind) return true;
  if (informerKind === "core/Pod") return podOwningKinds.has(declaredKind);
  if (informerKind === "apps/ReplicaSet") return replicaSetOwningKinds.has(declaredKind);
  return false;
}

export interface RefusedResource {
  readonly key: string;
  readonly problem: AccessProblem;
}

/**
 * The declared resources of `state` that the problems of the informer of `mapping` leave unread:
 * those it reads through, in a namespace refused (any namespace when the refused request was
 * cluster-wide). Request order; a resource refused twice is named once.
 */
export function refusedResources(state: ObservationState, mapping: ResourceMapping, problems: readonly InformerProblem[]): RefusedResource[] {
  if (problems.length === 0) return [];
  return [...state.resources].flatMap(([key, { identity }]) => {
    if (!readsThrough(groupKind(identity.apiVersion, identity.kind), mapping.kindKey)) return [];
    const problem = problems.find((candidate) => candidate.namespace === undefined || candidate.namespace === identity.namespace);
    if (!problem) return [];
    const { reason, verb, namespace, message } = problem;
    return [{ key, problem: { reason, verb, resource: mapping.resource, message, ...(namespace !== undefined && { namespace }) } }];
  });
}

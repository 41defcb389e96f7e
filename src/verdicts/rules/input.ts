import type { KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import type { ResourceReading, ScaleChange } from "./reading.js";
import type { PodProblem } from "./podProblems.js";

/**
 * The objects joined to a declared resource through controller ownerReferences. The rules filter
 * again by UID, so passing a superset (every pod of the namespace) is safe, merely slower: for a
 * Deployment, its ReplicaSets and their pods; for a StatefulSet, DaemonSet or Job, its pods.
 */
export interface OwnedObjects {
  readonly replicaSets: readonly ReplicaSet[];
  readonly pods: readonly Pod[];
  /**
   * What problemsOf answers for those of `pods` a given owner UID controls, kept per owner by the
   * live engine (PodProblemTally) so that a pod event does not walk the workload's pods; the rules
   * walk `pods` when it is absent.
   */
  readonly podProblemsOf?: ((ownerUid: string) => readonly PodProblem[]) | undefined;
}

export interface RuleInput {
  readonly object: KubeObject;
  readonly owned: OwnedObjects;
  /** The metadata.generation the apply produced (ResourceIdentity.generation). */
  readonly requestedGeneration?: number | undefined;
  /** Waiting reasons (pods) and Ready=False reasons (custom resources) that fail: at once, or after a grace. */
  readonly failOn: ReadonlySet<string>;
  /** Those of failOn with a grace: a pod problem terminal at once is chosen before them (terminalProblem). */
  readonly graced?: ReadonlySet<string> | undefined;
  /** The newest scale of the workload seen during the observation (the reducer's memory of its readings). */
  readonly scaled?: ScaleChange | undefined;
}

/** A per-kind rule: it always decides. */
export type Rule = (input: RuleInput) => ResourceReading;

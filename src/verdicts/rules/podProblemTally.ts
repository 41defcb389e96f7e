// The problems of the pods under each controller, kept up to date pod event by pod event, so that a
// workload's reading on one pod's event costs that pod (judged once, here) and a lookup, not a
// walk of all the workload's pods. Only pods with a problem are held: a rollout's pods mostly
// have none, and then a workload's list is empty and never rebuilt.
//
// It mirrors the engine's pod index exactly: fed with every pod the index stores or drops, under
// the same key (namespace/name) and filed under the same controller UID, so what it answers for an
// owner is what problemsOf answers for that owner's pods in the index:
// - a pod adopted by another ReplicaSet (its controller reference changed) leaves its old owner's
//   list and joins the new one's;
// - a pod deleted, or replaced under its name by a new pod (another UID), leaves with its object;
// - a pod being deleted (deletionTimestamp set) no longer counts, as in problemsOf;
// - a relist after 410 Gone reaches it as the index's adds, updates and deletes.
import type { Pod } from "../../kube/objects.js";
import { controllerOf } from "../../ownership/index.js";
import { byName, podProblems, type PodProblem } from "./podProblems.js";

interface PodWithProblems {
  readonly name: string;
  readonly problems: readonly PodProblem[];
}

const none: readonly PodProblem[] = [];

export class PodProblemTally {
  /** Controller UID -> pod key -> the pod's problems, for pods not being deleted that have some. */
  private readonly byOwner = new Map<string, Map<string, PodWithProblems>>();
  /** Pod key -> the controller UID it is filed under in byOwner. */
  private readonly ownerOfKey = new Map<string, string>();
  /** An owner's problems in SPEC's order, built on the first question after a change. */
  private readonly ordered = new Map<string, readonly PodProblem[]>();

  /** The pod stored under `key` is now `pod`; undefined when the key holds none any more. */
  set(key: string, pod: Pod | undefined): void {
    const before = this.ownerOfKey.get(key);
    if (before !== undefined) {
      const pods = this.byOwner.get(before)!;
      pods.delete(key);
      if (pods.size === 0) this.byOwner.delete(before);
      this.ownerOfKey.delete(key);
      this.ordered.delete(before);
    }
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return;
    const owner = controllerOf(pod)?.uid;
    if (owner === undefined) return;
    // Judged here, not through problemsOfPod's memo: every pod object the tally sees is new, and
    // memoised, 200,000 pods (twice as many during a relist) filled a WeakMap whose growth was
    // rehashed in one step of the relist (339 ms, bench/scale-curve) and whose entries every
    // collection traced as ephemerons.
    const problems = podProblems(pod);
    if (problems.length === 0) return;
    let pods = this.byOwner.get(owner);
    if (pods === undefined) this.byOwner.set(owner, (pods = new Map()));
    pods.set(key, { name: pod.metadata.name, problems });
    this.ownerOfKey.set(key, owner);
    this.ordered.delete(owner);
  }

  /**
   * What problemsOf answers for the pods controlled by `ownerUid` (their names are unique: a
   * controller's pods are in its namespace). An owner without problems holds no entry at all.
   */
  problemsOf(ownerUid: string): readonly PodProblem[] {
    const pods = this.byOwner.get(ownerUid);
    if (pods === undefined) return none;
    let problems = this.ordered.get(ownerUid);
    if (problems === undefined) {
      problems = [...pods.values()].sort(byName).flatMap((pod) => pod.problems);
      this.ordered.set(ownerUid, problems);
    }
    return problems;
  }
}

// Pods and ReplicaSets by owner, fed from the shared Pod and ReplicaSet informers, so a pod event
// reaches the workload that owns it by following controller UIDs upwards (pod -> ReplicaSet ->
// Deployment), never by label selector. Holds references to the informers' stripped objects.
// Pods are also found by the claims they mount (spec.volumes[].persistentVolumeClaim.claimName, in
// the pod's namespace: a reference by name, as ownership is by UID), so that a warning about a
// claim (ProvisioningFailed) reaches the workloads whose pods wait on it.
import type { KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import { OwnerIndex, controllerOf, objectKey } from "../../ownership/index.js";
import { PodProblemTally, type OwnedObjects } from "../../verdicts/index.js";

export class OwnedObjectIndex {
  private readonly pods = new OwnerIndex<Pod>();
  private readonly replicaSets = new OwnerIndex<ReplicaSet>();
  /** The problems of the indexed pods by controller UID, following every change of the pod index. */
  private readonly podProblems = new PodProblemTally();
  /** Pods by `namespace/claimName` of each claim they mount, by pod UID. A pod's volumes never change. */
  private readonly podsByClaim = new Map<string, Map<string, Pod>>();

  applyPod(type: "added" | "modified" | "deleted", pod: Pod): void {
    if (type === "deleted") {
      if (this.pods.delete(pod) !== undefined) this.podProblems.set(objectKey(pod), undefined);
    } else {
      this.pods.upsert(pod);
      this.podProblems.set(objectKey(pod), pod);
    }
    for (const claim of claimKeysOf(pod)) {
      const mounting = this.podsByClaim.get(claim) ?? new Map<string, Pod>();
      if (type === "deleted") mounting.delete(pod.metadata.uid);
      else mounting.set(pod.metadata.uid, pod);
      if (mounting.size === 0) this.podsByClaim.delete(claim);
      else this.podsByClaim.set(claim, mounting);
    }
  }

  /** The indexed pods that mount the claim `name` of `namespace`. */
  podsMounting(namespace: string, name: string): Iterable<Pod> {
    return this.podsByClaim.get(`${namespace}/${name}`)?.values() ?? [];
  }

  applyReplicaSet(type: "added" | "modified" | "deleted", replicaSet: ReplicaSet): void {
    if (type === "deleted") this.replicaSets.delete(replicaSet);
    else this.replicaSets.upsert(replicaSet);
  }

  /**
   * The UID of the workload an owned object answers to: a pod's controller, or for a pod of a
   * ReplicaSet (and for a ReplicaSet itself) the ReplicaSet's controller, its Deployment. A pod of
   * a bare ReplicaSet (declared on its own, no controller) answers to that ReplicaSet.
   */
  workloadUidOf(object: KubeObject): string | undefined {
    const controller = controllerOf(object);
    if (!controller) return undefined;
    if (object.kind === "Pod" && controller.kind === "ReplicaSet") {
      const replicaSet = this.replicaSets.getByUid(controller.uid);
      if (!replicaSet) return undefined;
      return controllerOf(replicaSet)?.uid ?? replicaSet.metadata.uid;
    }
    return controller.uid;
  }

  /** An owned pod or ReplicaSet by its UID (what a Warning event names). */
  byUid(kind: string, uid: string): KubeObject | undefined {
    if (kind === "Pod") return this.pods.getByUid(uid);
    if (kind === "ReplicaSet") return this.replicaSets.getByUid(uid);
    return undefined;
  }

  /**
   * What a workload owns: its ReplicaSets (Deployments) and the pods under it, those listed only
   * when read (the rules read their problems from the tally, pods themselves only on a verdict's
   * evidence or with Warning events to look up). Read at once, during the reading it is made for.
   */
  ownedBy(workload: KubeObject): OwnedObjects {
    const replicaSets = this.replicaSets.childrenOf(workload.metadata.uid);
    // The pods' owners: the ReplicaSets when there are any, else the workload itself.
    const owners = replicaSets.length > 0 ? new Set(replicaSets.map((replicaSet) => replicaSet.metadata.uid)) : new Set([workload.metadata.uid]);
    const index = this.pods;
    const tally = this.podProblems;
    let pods: Pod[] | undefined;
    return {
      replicaSets,
      get pods() {
        return (pods ??= [...owners].flatMap((owner) => index.childrenOf(owner)));
      },
      // The pods above are those of these owners only: any other owner has none of them.
      podProblemsOf: (ownerUid) => (owners.has(ownerUid) ? tally.problemsOf(ownerUid) : []),
    };
  }
}

function claimKeysOf(pod: Pod): string[] {
  return (pod.spec?.volumes ?? []).flatMap(({ persistentVolumeClaim: claim }) => (claim ? [`${pod.metadata.namespace ?? ""}/${claim.claimName}`] : []));
}

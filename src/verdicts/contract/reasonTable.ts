// The reasons a rollout waits on, as one table (issue 35): which are terminal by default, what
// grace to give the others when a request or the service names them, who writes each, and why:
// what heals it and what does not. defaultFailOn is read off it; `stagewatch reasons` and
// docs/reference/reasons.md print it.
//
// Why time and not a restart count for crash loops: the kubelet's back-off doubles from 10 s to
// 5 min, so "3 restarts" is 70 s for one pod and, after a pod recovered once, something else for
// the next; a grace says how long a rollout may be held, which is what a budget is measured in,
// and the pending text shows the restarts beside it (`CrashLoopBackOff for 40s of 2m0s (restarts 3)`).
//
// Evictions of the new pods are shown, not rows: a pod the kubelet evicted (`Evicted`, phase Failed,
// `The node was low on resource: memory...`) stays Failed beside the replacement its ReplicaSet
// makes, so naming it fails the rollout on any one eviction, whatever the grace; one preempted by
// the scheduler or evicted for a taint (`Preempted`, `TaintManagerEviction`, Normal events) is
// deleted at once, and what remains to see is its replacement, pending with the scheduler's words.

export interface ReasonRow {
  /** As the cluster writes it: a container's waiting reason, a condition's, a Warning event's. */
  readonly reason: string;
  /** Whether a request that names no failOn is failed by it (at once: every default is). */
  readonly inDefault: boolean;
  /** The grace to give it when naming it (`--fail-on CrashLoopBackOff:2m`); 0: at once; undefined: never terminal. */
  readonly graceSeconds: number | undefined;
  /** Who writes it, and where it shows. */
  readonly writtenBy: string;
  readonly heals: string;
  readonly neverHeals: string;
}

export const reasonTable: readonly ReasonRow[] = [
  {
    reason: "ImagePullBackOff",
    inDefault: true,
    graceSeconds: 0,
    writtenBy: "kubelet: a container's waiting reason",
    heals: "the image or tag is pushed, or the pull secret fixed, while the kubelet retries (back-off up to 5 min)",
    neverHeals: "a wrong name or tag, the most common broken rollout: nobody pushes it while the rollout waits",
  },
  {
    reason: "InvalidImageName",
    inDefault: true,
    graceSeconds: 0,
    writtenBy: "kubelet: a container's waiting reason",
    heals: "nothing but a new apply",
    neverHeals: "always: the image reference cannot be parsed",
  },
  {
    reason: "CrashLoopBackOff",
    inDefault: false,
    graceSeconds: 120,
    writtenBy: "kubelet: a container's waiting reason between restarts (the pod's Ready stays False through them)",
    heals: "a dependency comes up (a database, a migration, a ConfigMap) and the next restart stays up",
    neverHeals: "broken code or configuration: the back-off grows to 5 min and the restarts never end",
  },
  {
    reason: "CreateContainerConfigError",
    inDefault: false,
    graceSeconds: 60,
    writtenBy: "kubelet: a container's waiting reason",
    heals: "the ConfigMap or Secret (or its key) the container names is created",
    neverHeals: "a typo in the name or key",
  },
  {
    reason: "FailedCreate",
    inDefault: false,
    graceSeconds: 60,
    writtenBy: "replicaset-controller, job-controller: a Warning event, repeated while it retries (and the Deployment's ReplicaFailure)",
    heals: "the ResourceQuota is raised or freed (`exceeded quota`), an admission webhook admits the pod",
    neverHeals: "nobody changes the quota or the policy",
  },
  {
    reason: "FailedScheduling",
    inDefault: false,
    graceSeconds: 300,
    writtenBy: "kube-scheduler: a Warning event and the pod's PodScheduled=False/Unschedulable (either word names both)",
    heals: "a node is added (the cluster autoscaler), other pods free room, a taint is removed",
    neverHeals: "the pod asks for more than any node can have, or for a selector or affinity no node matches",
  },
  {
    reason: "TriggeredScaleUp",
    inDefault: false,
    graceSeconds: undefined,
    writtenBy: "cluster-autoscaler: a Normal event on the unplaced pod (`pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]`)",
    heals: "never terminal: while it is the autoscaler's newest word about the pod, a FailedScheduling grace waits for the node",
    neverHeals: "the node group cannot deliver (cloud quota, capacity): the autoscaler backs the group off and says so, and the scheduler's grace counts again",
  },
  {
    reason: "NotTriggerScaleUp",
    inDefault: false,
    graceSeconds: 120,
    writtenBy: "cluster-autoscaler: a Normal event on the unplaced pod (`pod didn't trigger scale-up: 2 max node group size reached`), at most once in 5 min",
    heals: "a node group's maximum is raised, its back-off ends, other pods free room",
    neverHeals: "no node group's nodes could take the pod (a selector, an affinity, a request larger than any node type)",
  },
  {
    reason: "FailedMount",
    inDefault: false,
    graceSeconds: 120,
    writtenBy: "kubelet: a Warning event on the pod, repeated while it retries",
    heals: "the Secret or ConfigMap appears, the volume attaches once its old node released it",
    neverHeals: "the volume source does not exist, or is held by another node for good",
  },
  {
    reason: "FailedAttachVolume",
    inDefault: false,
    graceSeconds: 120,
    writtenBy: "attachdetach-controller: a Warning event on the pod (`Multi-Attach error for volume ...`)",
    heals: "the old pod's node detaches the volume (a rollout of a ReadWriteOnce volume)",
    neverHeals: "the volume stays attached to a node that is gone without a force detach",
  },
  {
    reason: "ProvisioningFailed",
    inDefault: false,
    graceSeconds: 120,
    writtenBy: "the PV controller or the StorageClass's provisioner: a Warning event on the PersistentVolumeClaim, which stays Pending; a pod that mounts the claim shows it",
    heals: "the storage backend has room again, its credentials are fixed, the StorageClass is created",
    neverHeals: "the StorageClass or its parameters are wrong (`storageclass.storage.k8s.io \"fast\" not found`)",
  },
];

/** The failOn of a request that names none (and of a service not given `serve --fail-on`): the table's defaults, at once. */
export const defaultFailOn: readonly string[] = reasonTable.filter((row) => row.inDefault).map((row) => row.reason);

// Deployment -> ReplicaSet -> Pod. Only the current ReplicaSet's pods say anything about a
// rollout: the old ones are being scaled down and may be broken for reasons the new revision fixed.
import { revisionAnnotation, type Deployment, type Pod, type ReplicaSet } from "../kube/objects.js";
import { ownedBy } from "./controller.js";

/**
 * The ReplicaSet the Deployment controller is rolling to: owned by the Deployment's UID and
 * carrying the same `deployment.kubernetes.io/revision` the controller wrote on the Deployment.
 * Undefined until the controller has written both (a brand-new Deployment, or one whose new
 * ReplicaSet is not created yet).
 */
export function currentReplicaSet(deployment: Deployment, replicaSets: readonly ReplicaSet[]): ReplicaSet | undefined {
  const revision = deployment.metadata.annotations?.[revisionAnnotation];
  if (revision === undefined) return undefined;
  return ownedBy(deployment, replicaSets).find((rs) => rs.metadata.annotations?.[revisionAnnotation] === revision);
}

/** The pods of the Deployment's current ReplicaSet; empty when there is none yet. */
export function currentPods(deployment: Deployment, replicaSets: readonly ReplicaSet[], pods: readonly Pod[]): Pod[] {
  const current = currentReplicaSet(deployment, replicaSets);
  return current ? ownedBy(current, pods) : [];
}

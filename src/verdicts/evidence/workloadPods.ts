// The pods a resource's rule reads: a Pod itself, a Deployment's current ReplicaSet's pods, the
// pods a StatefulSet, DaemonSet or Job owns (by controller UID); none for any other kind.
import { podOwningKinds, replicaSetOwningKinds } from "../../kube/kindFacts.js";
import type { Deployment, KubeObject, Pod, StatefulSet } from "../../kube/objects.js";
import { currentPods, currentReplicaSet, ownedBy } from "../../ownership/index.js";
import { groupKind } from "../contract/kinds.js";
import type { OwnedObjects } from "../rules/input.js";

export function podsOf(object: KubeObject, owned: OwnedObjects): readonly Pod[] | undefined {
  const kind = groupKind(object.apiVersion, object.kind);
  if (kind === "core/Pod") return [object as Pod];
  if (replicaSetOwningKinds.has(kind)) return currentPods(object as Deployment, owned.replicaSets, owned.pods);
  if (podOwningKinds.has(kind)) return ownedBy(object, owned.pods);
  return undefined;
}

/**
 * The new revision as metrics label it, what an analysis's `{{revision}}` selects: a Deployment's
 * current ReplicaSet's `pod-template-hash`, read off its name (the controller names it
 * `<deployment>-<pod-template-hash>`; the informer cache keeps no labels but stagewatch's own), a
 * StatefulSet's `updateRevision` (its pods' `controller-revision-hash`), "" for other kinds (a
 * DaemonSet's, a Job's pods). Undefined while it cannot be told (a Deployment whose new
 * ReplicaSet is not read yet) and for kinds that own no pods.
 */
export function revisionOf(object: KubeObject, owned: OwnedObjects): string | undefined {
  const kind = groupKind(object.apiVersion, object.kind);
  if (replicaSetOwningKinds.has(kind)) {
    const name = currentReplicaSet(object as Deployment, owned.replicaSets)?.metadata.name;
    const prefix = `${object.metadata.name}-`;
    return name?.startsWith(prefix) ? name.slice(prefix.length) : undefined;
  }
  if (kind === "apps/StatefulSet") return (object as StatefulSet).status?.updateRevision ?? "";
  return podOwningKinds.has(kind) ? "" : undefined;
}

// The pods a resource's rule reads: a Pod itself, a Deployment's current ReplicaSet's pods, the
// pods a StatefulSet, DaemonSet or Job owns (by controller UID); none for any other kind.
import { podOwningKinds, replicaSetOwningKinds } from "../../kube/kindFacts.js";
import type { Deployment, KubeObject, Pod } from "../../kube/objects.js";
import { currentPods, ownedBy } from "../../ownership/index.js";
import { groupKind } from "../contract/kinds.js";
import type { OwnedObjects } from "../rules/input.js";

export function podsOf(object: KubeObject, owned: OwnedObjects): readonly Pod[] | undefined {
  const kind = groupKind(object.apiVersion, object.kind);
  if (kind === "core/Pod") return [object as Pod];
  if (replicaSetOwningKinds.has(kind)) return currentPods(object as Deployment, owned.replicaSets, owned.pods);
  if (podOwningKinds.has(kind)) return ownedBy(object, owned.pods);
  return undefined;
}

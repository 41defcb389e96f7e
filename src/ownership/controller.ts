// Ownership is read from metadata.ownerReferences, never from label selectors: kustomize
// commonLabels and copy-pasted charts routinely stamp one workload's selector labels onto pods it
// does not own. Only the *controller* reference counts (garbage-collector owners without
// `controller: true` do not manage the child), and it is matched by UID, so a workload deleted and
// re-created under the same name does not inherit the pods of its predecessor.
import type { KubeObject, OwnerReference } from "../kube/objects.js";

/** The reference of the object that manages `obj`, if any (at most one has `controller: true`). */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((ref) => ref.controller === true);
}

export function isControlledBy(child: KubeObject, owner: KubeObject): boolean {
  return controllerOf(child)?.uid === owner.metadata.uid;
}

/** The candidates `owner` controls, in their given order. */
export function ownedBy<T extends KubeObject>(owner: KubeObject, candidates: readonly T[]): T[] {
  return candidates.filter((candidate) => isControlledBy(candidate, owner));
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key client-go's stores use. */
export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name}` : name;
}

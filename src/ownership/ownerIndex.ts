// The live engine's routing table for one kind of owned object (pods, ReplicaSets): which objects a
// given owner UID controls, and which object a UID names. A pod event is routed by following
// controller UIDs upwards (pod -> ReplicaSet -> Deployment), never by labels.
import type { KubeObject } from "../kube/objects.js";
import { controllerOf, objectKey } from "./controller.js";
import { IndexedStore } from "./store.js";

const ownerIndexers = {
  uid: (obj: KubeObject) => [obj.metadata.uid],
  controllerUid: (obj: KubeObject) => {
    const controller = controllerOf(obj);
    return controller ? [controller.uid] : [];
  },
} as const;

/** Objects of one namespaced kind by `namespace/name`, indexed by UID and by controller UID. */
export class OwnerIndex<T extends KubeObject> extends IndexedStore<T, keyof typeof ownerIndexers> {
  constructor() {
    super(objectKey, ownerIndexers);
  }

  /** The objects whose controller reference names this UID. */
  childrenOf(ownerUid: string): T[] {
    return this.byIndex("controllerUid", ownerUid);
  }

  /** The object currently stored with this UID (a re-created object has a new one). */
  getByUid(uid: string): T | undefined {
    return this.byIndex("uid", uid)[0];
  }
}

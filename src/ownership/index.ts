// Which pods and ReplicaSets a workload owns: controller ownerReferences matched by UID, never
// label selectors. Pure functions for one-shot joins, and OwnerIndex for the live engine.
export { controllerOf, isControlledBy, objectKey, ownedBy } from "./controller.js";
export { currentPods, currentReplicaSet } from "./deployments.js";
export { OwnerIndex } from "./ownerIndex.js";
export { IndexedStore } from "./store.js";
export type { IndexFunc, KeyFunc } from "./store.js";

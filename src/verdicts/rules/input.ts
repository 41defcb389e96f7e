import type { KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import type { ResourceReading } from "../reading.js";

/**
 * The objects joined to a declared resource through controller ownerReferences. The rules filter
 * again by UID, so passing a superset (every pod of the namespace) is safe, merely slower: for a
 * Deployment, its ReplicaSets and their pods; for a StatefulSet, DaemonSet or Job, its pods.
 */
export interface OwnedObjects {
  readonly replicaSets: readonly ReplicaSet[];
  readonly pods: readonly Pod[];
}

export interface RuleInput {
  readonly object: KubeObject;
  readonly owned: OwnedObjects;
  /** The metadata.generation the apply produced (ResourceIdentity.generation). */
  readonly requestedGeneration?: number | undefined;
  /** Waiting reasons (pods) and Ready=False reasons (custom resources) that fail at once. */
  readonly failOn: ReadonlySet<string>;
}

/** A per-kind rule: it always decides. */
export type Rule = (input: RuleInput) => ResourceReading;

// Settling is for good, and a workload's evidence is read from what it owns: its ready pods' image
// digests (the verdict's, and the attestation's subjects), a failed pod's termination message. New
// informers list in whatever order their answers come, so a workload whose status already says
// ready can be read before its pods and ReplicaSets are listed; settled then, its verdict would
// name no image and its attestation would have no subject. It waits, pending, until they are
// listed (the driver reads it again then). Failures are not held: failing fast matters more than
// a termination message. Nor is a Job: its pods have completed when it settles, none is ready,
// so there is no image to wait for (readyImages).
import { podOwningKinds } from "../../kube/kindFacts.js";
import { groupKind } from "../../kube/kinds.js";
import type { ResourceIdentity } from "../contract/schemas.js";
import { pending, type ResourceReading } from "../rules/reading.js";

/**
 * `reading`, or, for a workload read settled before what it owns was listed (`ownedListed`, asked
 * with its group/kind), a pending reading saying so.
 */
export function awaitingOwnedObjects(
  identity: Pick<ResourceIdentity, "apiVersion" | "kind">,
  reading: ResourceReading,
  ownedListed: (kind: string) => boolean,
): ResourceReading {
  if (reading.state !== "settled") return reading;
  const kind = groupKind(identity.apiVersion, identity.kind);
  if (!podOwningKinds.has(kind) || kind === "batch/Job" || ownedListed(kind)) return reading;
  const waiting = pending(undefined, `${reading.message}; its pods not listed yet`);
  return reading.replicas === undefined ? waiting : { ...waiting, replicas: reading.replicas };
}

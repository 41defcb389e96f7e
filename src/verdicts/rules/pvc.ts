// PersistentVolumeClaim: settled when Bound, as kstatus, Helm's waiter and Argo CD have it: a pod
// using an unbound claim does not start. Lost is terminal (the bound volume is gone and the claim
// never binds again). Pending is pending; with a WaitForFirstConsumer StorageClass the claim binds
// only once a pod using it is scheduled, so a claim no declared pod uses waits out the budget on
// such a class, and the message says why.
import type { PersistentVolumeClaim } from "../../kube/objects.js";
import { failed, pending, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export function settlePersistentVolumeClaim({ object }: RuleInput): ResourceReading {
  const claim = object as PersistentVolumeClaim;
  const phase = claim.status?.phase ?? "Pending";
  if (phase === "Bound") return settled(claim.spec?.volumeName ? `Bound to ${claim.spec.volumeName}` : "Bound");
  if (phase === "Lost") return failed("ClaimLost", "the PersistentVolume it was bound to no longer exists");
  return pending(
    phase,
    "waiting for a volume to bind (with a WaitForFirstConsumer StorageClass it binds once a pod using it is scheduled)",
  );
}

// ReplicaSet declared on its own (a Deployment's ReplicaSets are read by the Deployment's rule),
// and its predecessor ReplicationController, whose status has the same fields. Settled when the
// controller has observed the current generation and exactly the desired replicas are ready and
// available, none left over or terminating. A new ReplicaSet reads `status: {replicas: 0}` before
// the controller looks at it (the field is not omitempty), so observedGeneration decides whether
// the counts are the controller's at all. ReplicaFailure (FailedCreate: quota, admission, a
// missing ServiceAccount) is pending with the API server's refusal, as for Deployments: it clears
// once the cause is fixed, and it is often the only place the cause shows. It holds the ReplicaSet
// back even with every replica ready (kstatus reads it so): the controller could not create a pod
// it wanted, and the counts may be those of an older spec's pods.
import type { Condition, ReplicaSet } from "../../kube/objects.js";
import type { ResourceReading } from "./reading.js";
import { listParts } from "../text/text.js";
import type { RuleInput } from "./input.js";
import { awaitingController, judgeWorkload, problemsOwnedBy } from "./workload.js";

function replicaFailure(conditions: readonly Condition[]): { reason: string; message: string }[] {
  const failure = conditions.find((c) => c.type === "ReplicaFailure" && c.status === "True");
  return failure ? [{ reason: failure.reason ?? "ReplicaFailure", message: failure.message ?? "replica creation failed" }] : [];
}

export function settleReplicaSet({ object, owned, failOn, graced }: RuleInput): ResourceReading {
  const replicaSet = object as ReplicaSet;
  const status = replicaSet.status;
  if (status?.observedGeneration === undefined) return awaitingController(replicaSet.kind);
  const desired = replicaSet.spec?.replicas ?? 1;
  const total = status.replicas ?? 0;
  const ready = status.readyReplicas ?? 0;
  const available = status.availableReplicas ?? 0;
  // Reported by clusters with DeploymentReplicaSetTerminatingReplicas (Kubernetes 1.33+) only.
  const terminating = status.terminatingReplicas ?? 0;
  const summary = listParts(
    `${ready}/${desired} replicas ready`,
    available !== ready && `${available} available`,
    total > desired && `${total - desired} pending termination`,
    terminating > 0 && `${terminating} terminating`,
  );
  const blockers = replicaFailure(status.conditions ?? []);
  return judgeWorkload({
    summary,
    complete: ready === desired && available === desired && total === desired && terminating === 0 && blockers.length === 0,
    problems: problemsOwnedBy(replicaSet, owned),
    failOn,
    graced,
    blockers,
  });
}

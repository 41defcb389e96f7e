// Deployment: settled when the controller has observed the current generation and every replica is
// updated, available and ready with no old replica left, which is stricter than Helm 3's
// "ready >= replicas - maxUnavailable" and what a person means by "rolled out".
// ProgressDeadlineExceeded and ReplicaFailure are pending, never failed: the controller keeps
// reconciling through both and they clear on their own once a slow pull or an exhausted quota
// resolves (the default progressDeadlineSeconds is as long as a typical budget). Their text goes
// into the pending message instead, because it is often the only place the cause shows
// (a quota or admission refusal creates no pod at all).
import type { Deployment } from "../../kube/objects.js";
import { currentReplicaSet } from "../../ownership/index.js";
import type { ResourceReading } from "./reading.js";
import { listParts, plural } from "../text/text.js";
import type { RuleInput } from "./input.js";
import { awaitingController, judgeWorkload, problemsOwnedBy } from "./workload.js";

function blockersOf(deployment: Deployment): { reason: string; message: string }[] {
  const conditions = deployment.status?.conditions ?? [];
  const blockers: { reason: string; message: string }[] = [];
  if (deployment.spec?.paused) {
    const progressing = conditions.find((c) => c.type === "Progressing");
    blockers.push({ reason: "Paused", message: progressing?.message ?? "Deployment is paused" });
  }
  const deadline = conditions.find((c) => c.type === "Progressing" && c.status === "False" && c.reason === "ProgressDeadlineExceeded");
  if (deadline) blockers.push({ reason: "ProgressDeadlineExceeded", message: deadline.message ?? "progress deadline exceeded" });
  const replicaFailure = conditions.find((c) => c.type === "ReplicaFailure" && c.status === "True");
  if (replicaFailure) {
    // The controller copies the current ReplicaSet's FailedCreate here, with the API server's refusal.
    blockers.push({ reason: replicaFailure.reason ?? "ReplicaFailure", message: replicaFailure.message ?? "replica creation failed" });
  }
  return blockers;
}

export function settleDeployment({ object, owned, failOn, graced }: RuleInput): ResourceReading {
  const deployment = object as Deployment;
  const status = deployment.status;
  if (status?.observedGeneration === undefined) return awaitingController("Deployment");
  const desired = deployment.spec?.replicas ?? 1;
  const total = status.replicas ?? 0;
  const updated = status.updatedReplicas ?? 0;
  const ready = status.readyReplicas ?? 0;
  const available = status.availableReplicas ?? 0;
  // status.replicas counts the pods of every ReplicaSet that are not being deleted: what exceeds
  // the updated count belongs to old revisions still being scaled down.
  const old = Math.max(0, total - updated);
  // Pods already being deleted are counted apart, and only by clusters that report them
  // (status.terminatingReplicas, Kubernetes 1.33+): "no old replica left" waits for them there.
  const terminating = status.terminatingReplicas ?? 0;
  const summary = listParts(
    `${ready}/${desired} replicas ready`,
    `${updated} updated`,
    available !== ready && `${available} available`,
    // kubectl's wording: old replicas are "pending termination" once the new ones are all there.
    old > 0 && `${plural(old, "old replica")}${updated >= desired ? " pending termination" : ""}`,
    terminating > 0 && `${terminating} terminating`,
  );
  const blockers = blockersOf(deployment);
  return judgeWorkload({
    summary,
    complete:
      !deployment.spec?.paused && updated === desired && old === 0 && terminating === 0 && available === desired && ready === desired,
    problems: problemsOwnedBy(currentReplicaSet(deployment, owned.replicaSets), owned),
    failOn,
    graced,
    blockers,
  });
}

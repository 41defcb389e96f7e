// Deployment: settled when the controller has observed the current generation and every replica is
// updated, available and ready with no old replica left, which is stricter than Helm 3's
// "ready >= replicas - maxUnavailable" and what a person means by "rolled out".
// ProgressDeadlineExceeded and ReplicaFailure are pending, never failed: the controller keeps
// reconciling through both and they clear on their own once a slow pull or an exhausted quota
// resolves (the default progressDeadlineSeconds is as long as a typical budget). Their text goes
// into the pending message instead, because it is often the only place the cause shows
// (a quota or admission refusal creates no pod at all).
//
// Autoscaling: an HPA (or `kubectl scale`) writes spec.replicas through the scale subresource, which
// bumps metadata.generation like any spec change; the controller observes it within moments and
// scales the ReplicaSets (proportionally during a rollout), so the counts are read against the
// spec.replicas it now reconciles to, and fewer ready than a new spec.replicas is pending, never a
// failure. Once a scale was seen during the observation, the controller's own word that this
// generation's rollout is done also settles the Deployment: Progressing=True/NewReplicaSetAvailable
// naming the current ReplicaSet (set when updated, total and available all equalled spec.replicas,
// and kept through later scales: deployment controller, progress.go syncRolloutStatus) with
// Available=True (within maxUnavailable at the new count) and no old or terminating replica left.
// Else an autoscaler that keeps moving the target, or adds replicas the cluster cannot place, would
// hold a finished rollout until the budget ran out. Without a scale the stricter reading stands: every
// replica ready, as kubectl rollout status and kstatus wait for.
import type { Deployment, ReplicaSet } from "../../kube/objects.js";
import { currentReplicaSet } from "../../ownership/index.js";
import type { ResourceReading } from "./reading.js";
import { joinParts, listParts, plural } from "../text/text.js";
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

/**
 * The controller says the current ReplicaSet's rollout finished and the Deployment is available:
 * what holds through a scale that came after (the Progressing condition is reset only by a new rollout).
 */
function rolledOutAndAvailable(deployment: Deployment, current: ReplicaSet | undefined): boolean {
  if (current === undefined) return false;
  const conditions = deployment.status?.conditions ?? [];
  const progressing = conditions.find((c) => c.type === "Progressing");
  const available = conditions.find((c) => c.type === "Available");
  return (
    progressing?.status === "True" &&
    progressing.reason === "NewReplicaSetAvailable" &&
    // `ReplicaSet "api-7f9c" has successfully progressed.`: about this revision, not the previous one.
    (progressing.message ?? "").includes(`"${current.metadata.name}"`) &&
    available?.status === "True"
  );
}

export function settleDeployment({ object, owned, failOn, graced, scaled }: RuleInput): ResourceReading {
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
  const current = currentReplicaSet(deployment, owned.replicaSets);
  const onlyNewLeft = !deployment.spec?.paused && old === 0 && terminating === 0;
  const complete = onlyNewLeft && updated === desired && available === desired && ready === desired;
  const rolledOutBeforeScale = !complete && scaled !== undefined && onlyNewLeft && rolledOutAndAvailable(deployment, current);
  const reading = judgeWorkload({
    summary: rolledOutBeforeScale ? joinParts(summary, "rollout complete (NewReplicaSetAvailable) before the scale finished") : summary,
    complete: complete || rolledOutBeforeScale,
    problems: problemsOwnedBy(current, owned),
    failOn,
    graced,
    blockers,
  });
  return { ...reading, replicas: desired };
}

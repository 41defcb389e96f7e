// StatefulSet writes no conditions: its progress is read from replica counts and revisions.
// With a partition, pods below it keep the old revision on purpose, so the revisions never meet
// and only `updated >= replicas - partition` can be asked; without one, the rollout is done when
// the controller has moved currentRevision to updateRevision. OnDelete updates nothing by itself:
// ready replicas are all one can wait for.
import type { StatefulSet } from "../../kube/objects.js";
import type { ResourceReading } from "./reading.js";
import { listParts } from "../text/text.js";
import type { RuleInput } from "./input.js";
import { awaitingController, judgeWorkload, problemsOwnedBy } from "./workload.js";

function rolloutOf(statefulSet: StatefulSet, desired: number): { complete: boolean; note?: string } {
  const spec = statefulSet.spec ?? {};
  const status = statefulSet.status ?? {};
  const updated = status.updatedReplicas ?? 0;
  if (spec.updateStrategy?.type === "OnDelete") return { complete: true, note: "OnDelete: pods update when deleted" };
  const partition = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (partition > 0) return { complete: updated >= desired - partition, note: `partition ${partition}` };
  if (status.currentRevision !== status.updateRevision) {
    return { complete: false, note: `rolling from revision ${status.currentRevision ?? "(none)"} to ${status.updateRevision ?? "(none)"}` };
  }
  return { complete: updated >= desired };
}

export function settleStatefulSet({ object, owned, failOn, graced }: RuleInput): ResourceReading {
  const statefulSet = object as StatefulSet;
  const status = statefulSet.status;
  if (status?.observedGeneration === undefined) return awaitingController("StatefulSet");
  const desired = statefulSet.spec?.replicas ?? 1;
  const ready = status.readyReplicas ?? 0;
  const rollout = rolloutOf(statefulSet, desired);
  const reading = judgeWorkload({
    summary: listParts(`${ready}/${desired} replicas ready`, `${status.updatedReplicas ?? 0} updated`, rollout.note),
    complete: ready === desired && rollout.complete,
    problems: problemsOwnedBy(statefulSet, owned),
    failOn,
    graced,
  });
  // An HPA scales a StatefulSet through its scale subresource too: the count lets the reducer name it.
  return { ...reading, replicas: desired };
}

// cluster-autoscaler's word on a pod the scheduler cannot place (issue 35), read beside the
// scheduler's own (the pod's PodScheduled=False/Unschedulable, the FailedScheduling event):
// - TriggeredScaleUp: a node is coming. Never terminal: the reading is pending and says so
//   (`scale-up triggered for pod api-7f9c-x2: pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]`),
//   which holds a FailedScheduling or Unschedulable grace open for as long as it is the
//   autoscaler's newest word about the pod. When the node group cannot deliver, the autoscaler
//   backs it off and says so again (NotTriggerScaleUp, or TriggeredScaleUp on another group);
//   the scheduler's reason then counts again from when the pod became unplaced.
// - NotTriggerScaleUp: no node group it knows could take the pod
//   (`pod didn't trigger scale-up: 1 node(s) didn't match Pod's node affinity/selector, ...`).
//   Terminal, with its own grace, when failOn names it; shown beside the scheduler's reading
//   otherwise. It holds for as long as it stays the newest word and the pod stays unplaced, not
//   by repeating: the autoscaler's recorder writes each reason about a pod at most once in five
//   minutes (utils/kubernetes/events.go: burst 1, refilled 1/300 s), longer than most graces.
// The word counts only while the scheduler's reason is the reading's: once the pod is placed, a
// scale-up said earlier is history.
import { autoscalerReasons, type ClusterWarning } from "../../kube/warnings.js";
import { joinParts } from "../text/text.js";
import { clean, failed, pending, type ResourceReading } from "./reading.js";

/** The scheduler's reason as the pod's condition and its Warning event write it (contract/failOn.ts sameFact). */
const schedulerReasons: ReadonlySet<string> = new Set(["Unschedulable", "FailedScheduling"]);

/** The reading with the autoscaler's newest word about the workload's unplaced pods, if it has one. */
export function withAutoscalerWord(reading: ResourceReading, word: ClusterWarning | undefined, failOn: ReadonlySet<string>): ResourceReading {
  if (word === undefined || reading.state === "settled" || reading.reason === undefined || !schedulerReasons.has(reading.reason)) return reading;
  const pod = word.involved.name;
  if (word.reason === autoscalerReasons.scaleUpTriggered) {
    return shown(reading, pending(word.reason, joinParts(`scale-up triggered for pod ${pod}: ${word.message}`, reading.message)));
  }
  if (word.reason !== autoscalerReasons.noScaleUp) return reading;
  const said = joinParts(`no node group can fit pod ${pod}: ${word.message}`, reading.message);
  if (failOn.has(word.reason)) return shown(reading, failed(word.reason, said, { about: `Pod ${pod}` }));
  return { ...reading, message: clean(said) };
}

/** The scheduler's Warning event stays shown beside the autoscaler's word. */
function shown(before: ResourceReading, after: ResourceReading): ResourceReading {
  return before.warning ? { ...after, warning: before.warning } : after;
}

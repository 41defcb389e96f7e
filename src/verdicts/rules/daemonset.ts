// DaemonSet: one pod a matching node. Rolling updates are done when every scheduled pod is updated,
// available and ready. OnDelete never replaces a pod by itself, so waiting for "updated" would wait
// for a person to delete pods: available on every node is the most it can promise (kstatus never
// calls it current; Argo CD and Helm call it healthy at once).
import type { DaemonSet } from "../../kube/objects.js";
import type { ResourceReading } from "./reading.js";
import { listParts } from "../text/text.js";
import type { RuleInput } from "./input.js";
import { awaitingController, judgeWorkload, problemsOwnedBy } from "./workload.js";

export function settleDaemonSet({ object, owned, failOn, graced }: RuleInput): ResourceReading {
  const daemonSet = object as DaemonSet;
  const status = daemonSet.status;
  if (status?.observedGeneration === undefined) return awaitingController("DaemonSet");
  const desired = status.desiredNumberScheduled ?? 0;
  const updated = status.updatedNumberScheduled ?? 0;
  const available = status.numberAvailable ?? 0;
  const ready = status.numberReady ?? 0;
  const onDelete = daemonSet.spec?.updateStrategy?.type === "OnDelete";
  const summary = listParts(
    `${ready}/${desired} pods ready`,
    `${updated} updated`,
    available !== ready && `${available} available`,
    onDelete && "OnDelete: pods update when deleted",
  );
  return judgeWorkload({
    summary,
    complete: onDelete ? available === desired : updated === desired && available === desired && ready === desired,
    problems: problemsOwnedBy(daemonSet, owned),
    failOn,
    graced,
  });
}

// Anything with a status that has no rule of its own (custom resources above all), read the way
// kstatus's conventions describe: Stalled=True is terminal, Reconciling=True is in progress,
// Ready=True is done. Two traps are avoided on purpose:
// - No status yet is pending, not current: a controller that has not written status has not
//   looked at the object (kustomize-controller #387, kpt #1312 and cluster-api #9299 were false
//   successes of the opposite choice).
// - A condition carrying an observedGeneration older than metadata.generation describes the old
//   spec: a stale Ready=True is not success (kapp #435).
import type { Condition, KubeObject } from "../../kube/objects.js";
import { failed, pending, readingReasons, settled, type ResourceReading } from "../reading.js";
import type { RuleInput } from "./input.js";

function isStale(condition: Condition, object: KubeObject): boolean {
  const { generation } = object.metadata;
  return condition.observedGeneration !== undefined && generation !== undefined && condition.observedGeneration < generation;
}

export function settleByConditions({ object, failOn }: RuleInput): ResourceReading {
  const status = object.status;
  // `status: null` is what an unstripped object of a kind whose Go type has a pointer status says.
  if (status === undefined || status === null || Object.keys(status).length === 0) {
    return pending(readingReasons.awaitingStatus, "no status written yet");
  }
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const find = (type: string) => conditions.find((c) => c.type === type);
  const ready = find("Ready");
  if (ready && isStale(ready, object)) {
    return pending(
      readingReasons.generationNotObserved,
      `Ready describes generation ${ready.observedGeneration}, the object is at generation ${object.metadata.generation}`,
    );
  }
  const stalled = find("Stalled");
  if (stalled?.status === "True" && !isStale(stalled, object)) return failed(stalled.reason ?? "Stalled", stalled.message ?? "stalled");
  const reconciling = find("Reconciling");
  if (reconciling?.status === "True") return pending(reconciling.reason ?? "Reconciling", reconciling.message ?? "reconciling");
  if (ready === undefined) return settled(conditions.length === 0 ? "status written, no conditions" : "no Ready condition, no problem reported");
  if (ready.status === "True") return settled(ready.message || "Ready");
  if (ready.reason !== undefined && failOn.has(ready.reason)) return failed(ready.reason, ready.message ?? "not ready");
  return pending(ready.reason ?? "NotReady", ready.message ?? `Ready is ${ready.status}`);
}

// The fallback for every kind neither the health library, a configured health check nor a rule of
// its own covers: it fails safe. A custom resource is settled only when no common signal speaks
// against it (signals.ts): kstatus calls an unknown kind Current once it has a status, and on the
// test objects of Argo CD's health library that settled hundreds of objects whose controller said
// the change was still in progress or had failed (an aborted rollout, a Gateway no controller
// accepted, `Ready=True` beside `Synced=False`). Waiting on a healthy object costs a budget; settling
// a broken one turns a pipeline green on a broken release, which this project must never do.
//
// Read, in this order of what the reading reports (every signal against is found; the first failure
// wins, then the first reason to wait):
// - no status yet, or `conditions: []`: the controller has not looked (kustomize-controller #387,
//   kpt #1312, cluster-api #9299 were false successes of the opposite choice);
// - a signal condition written for an older generation (kapp #435);
// - `Stalled=True` or `Failed=True`: failed, the controller gave up;
// - a positive type False or Unknown, `Degraded=True`, `Reconciling=True`: pending with its reason
//   and message, failed when the request's failOn names the reason;
// - `status.phase` / `status.state` saying failed (failed) or in progress (pending);
// - `spec.paused: true`: pending, a paused object does not roll out.
// Settled says which signal it read, or that there was none, so a person knows a health check
// would help.
import type { Condition, KubeObject } from "../../kube/objects.js";
import { failed, pending, readingReasons, settled, type ResourceReading } from "./reading.js";
import { shownReason } from "../contract/reasons.js";
import type { RuleInput } from "./input.js";
import {
  conditionsOf,
  conditionWords,
  negativeConditionTypes,
  phaseMeaning,
  phaseOf,
  positiveConditionTypes,
  reasonWord,
  reconcilingConditionType,
  staleSignal,
  wordsFor,
} from "./signals.js";

const terminalConditionTypes: ReadonlySet<string> = new Set(["Stalled", "Failed"]);

function againstByConditions(conditions: readonly Condition[], failOn: ReadonlySet<string>): ResourceReading[] {
  const readings: ResourceReading[] = [];
  const fresh = (type: string) => conditions.filter((c) => c.type === type);
  for (const condition of negativeConditionTypes.flatMap(fresh)) {
    if (condition.status !== "True") continue;
    // An empty reason is none (a Go status type without omitempty writes ""); failOn is matched
    // against the reason as the verdict shows it, so a request names what it reads.
    const reason = shownReason(condition.reason || condition.type);
    const terminal = terminalConditionTypes.has(condition.type) || failOn.has(reason);
    readings.push(terminal ? failed(reason, conditionWords(condition)) : pending(reason, conditionWords(condition)));
  }
  // Ready first: its reason is the one a person looks for.
  const positives = ["Ready", ...positiveConditionTypes.filter((t) => t !== "Ready")].flatMap(fresh);
  for (const condition of positives) {
    if (condition.status === "True") continue;
    const reason = shownReason(condition.reason || `Not${condition.type}`);
    readings.push(failOn.has(reason) ? failed(reason, conditionWords(condition)) : pending(reason, conditionWords(condition)));
  }
  for (const condition of fresh(reconcilingConditionType)) {
    if (condition.status === "True") readings.push(pending(condition.reason || "Reconciling", conditionWords(condition)));
  }
  return readings;
}

function againstByPhase(object: KubeObject, failOn: ReadonlySet<string>): ResourceReading | undefined {
  const phase = phaseOf(object);
  if (!phase) return undefined;
  const meaning = phaseMeaning(phase.value);
  const said = typeof object.status?.message === "string" && object.status.message !== "" ? `: ${object.status.message}` : "";
  const message = `${phase.field} ${phase.value}${said}`;
  if (meaning === "failed" || failOn.has(phase.value)) return failed(reasonWord(phase.value, "Failed"), message);
  if (meaning === "inProgress") return pending(reasonWord(phase.value, "InProgress"), message);
  return undefined;
}

function settledBy(object: KubeObject, conditions: readonly Condition[]): ResourceReading {
  const positive = wordsFor(object);
  if (positive) return settled(positive);
  const phase = phaseOf(object);
  if (phase && phaseMeaning(phase.value) === "healthy") return settled(`${phase.field} ${phase.value}`);
  const present = conditions.length > 0 ? `conditions ${[...new Set(conditions.map((c) => c.type))].join(", ")}` : "no conditions, phase or state";
  return settled(`no readiness signal (${present}); a health check for the kind would read it`);
}

export function settleByCommonSignals({ object, failOn }: RuleInput): ResourceReading {
  const status = object.status;
  // `status: null` is what an unstripped object of a kind whose Go type has a pointer status says.
  if (status === undefined || status === null || Object.keys(status).length === 0) {
    return pending(readingReasons.awaitingStatus, "no status written yet");
  }
  if (Array.isArray(status.conditions) && status.conditions.length === 0) {
    return pending(readingReasons.awaitingStatus, "no conditions written yet (conditions: [])");
  }
  const stale = staleSignal(object);
  if (stale) {
    return pending(
      readingReasons.generationNotObserved,
      `${stale.type} describes generation ${stale.observedGeneration}, the object is at generation ${object.metadata.generation}`,
    );
  }
  const conditions = conditionsOf(object);
  const against = [...againstByConditions(conditions, failOn), againstByPhase(object, failOn)].filter((r) => r !== undefined);
  if (object.spec?.paused === true) against.push(pending("Paused", "paused (spec.paused is true)"));
  const decided = against.find((r) => r.state === "failed") ?? against[0];
  return decided ?? settledBy(object, conditions);
}

// The readiness signals controllers of custom kinds commonly write, read one way for the fallback
// rule (commonSignals.ts) and for the words of CEL health checks (celHealthChecks.ts). They follow
// the conventions most controllers share (kstatus's abnormal-true and normal-true condition types,
// Kubernetes API conventions for `status.phase`), not any one project:
// - positive condition types say the object is fine when True; False or Unknown speaks against it;
// - negative types say something is wrong when True;
// - `Reconciling=True` says the controller is still at work;
// - a `status.phase` or `status.state` word says failed, in progress, or neither.
// A condition carrying an observedGeneration older than metadata.generation describes the old spec
// (kapp #435) and is read as "not observed yet", whatever it says.
import type { Condition, KubeObject } from "../../kube/objects.js";
import { isReasonShaped } from "../contract/reasons.js";

export const positiveConditionTypes: readonly string[] = [
  "Ready",
  "Available",
  "Accepted",
  "Programmed",
  "Synced",
  "Healthy",
  "Succeeded",
  "Reconciled",
  "Established",
];
export const negativeConditionTypes: readonly string[] = ["Stalled", "Degraded", "Failed"];
export const reconcilingConditionType = "Reconciling";

/** The condition types whose observedGeneration is compared with the object's generation. */
const signalTypes: ReadonlySet<string> = new Set([...positiveConditionTypes, ...negativeConditionTypes, reconcilingConditionType]);

export function conditionsOf(object: KubeObject): readonly Condition[] {
  const conditions = object.status?.conditions;
  return Array.isArray(conditions) ? conditions.filter((c): c is Condition => typeof c === "object" && c !== null && typeof c.type === "string") : [];
}

export function isStale(condition: Condition, object: KubeObject): boolean {
  const { generation } = object.metadata;
  return typeof condition.observedGeneration === "number" && generation !== undefined && condition.observedGeneration < generation;
}

/** The first signal condition written for an older generation than the object's. */
export function staleSignal(object: KubeObject): Condition | undefined {
  return conditionsOf(object).find((c) => signalTypes.has(c.type) && isStale(c, object));
}

export type PhaseMeaning = "failed" | "inProgress" | "healthy" | "neutral";

// Words compared case-insensitively with '-', '_' and spaces removed: `InProgress`, `in_progress`.
const failedPhases = new Set(["failed", "failure", "error", "errored"]);
const inProgressPhases = new Set([
  "pending",
  "progressing",
  "inprogress",
  "provisioning",
  "creating",
  "deploying",
  "deleting",
  "terminating",
  "updating",
  "upgrading",
  "installing",
  "initializing",
  "initialising",
  "reconciling",
  "scaling",
  "starting",
  "waiting",
  "queued",
  "new",
  "unknown",
  "degraded",
  "unhealthy",
  "notready",
  "unavailable",
  "paused",
  "suspended",
]);
const healthyPhases = new Set(["ready", "running", "active", "available", "succeeded", "healthy", "bound", "deployed", "complete", "completed", "online", "provisioned", "synced", "established"]);

export function phaseMeaning(value: string): PhaseMeaning {
  const word = value.toLowerCase().replace(/[-_\s]/g, "");
  if (failedPhases.has(word)) return "failed";
  if (inProgressPhases.has(word)) return "inProgress";
  if (healthyPhases.has(word)) return "healthy";
  return "neutral";
}

/** `status.phase` or, failing that, `status.state`, when it is a string. */
export function phaseOf(object: KubeObject): { field: "phase" | "state"; value: string } | undefined {
  const status = object.status;
  if (typeof status?.phase === "string" && status.phase !== "") return { field: "phase", value: status.phase };
  if (typeof status?.state === "string" && status.state !== "") return { field: "state", value: status.state };
  return undefined;
}

/** What a reading shows of a condition: its message, named by its type unless it is Ready. */
export function conditionWords(condition: Condition): string {
  const said = condition.message ? condition.message : `${condition.type} is ${condition.status}${condition.reason ? ` (${condition.reason})` : ""}`;
  return condition.type === "Ready" || !condition.message ? said : `${condition.type}: ${said}`;
}

/**
 * A word that may be a reason: `value` when it has a reason's shape (reasons.ts), else `fallback`,
 * for values that are not reasons to begin with (a phase `Failed: see logs`, a CEL expression's
 * text).
 */
export function reasonWord(value: string | undefined, fallback: string): string {
  return value !== undefined && isReasonShaped(value) ? value : fallback;
}

export interface Words {
  readonly reason?: string | undefined;
  readonly message: string;
}

/**
 * The object's own words against it: the first condition that speaks against it (a negative type
 * True, then Ready, then another positive type not True, then Reconciling=True), else
 * `status.message`. Undefined when it says nothing.
 */
export function wordsAgainst(object: KubeObject): Words | undefined {
  const conditions = conditionsOf(object).filter((c) => !isStale(c, object));
  const against =
    conditions.find((c) => negativeConditionTypes.includes(c.type) && c.status === "True") ??
    conditions.find((c) => c.type === "Ready" && c.status !== "True") ??
    conditions.find((c) => positiveConditionTypes.includes(c.type) && c.status !== "True") ??
    conditions.find((c) => c.type === reconcilingConditionType && c.status === "True");
  if (against) return { reason: against.reason, message: conditionWords(against) };
  const message = object.status?.message;
  return typeof message === "string" && message !== "" ? { message } : undefined;
}

/** The object's own words for it, naming the signal: `Ready=True: <message>`, else another positive type True. */
export function wordsFor(object: KubeObject): string | undefined {
  const conditions = conditionsOf(object).filter((c) => c.status === "True" && !isStale(c, object));
  const positive = conditions.find((c) => c.type === "Ready") ?? conditions.find((c) => positiveConditionTypes.includes(c.type));
  return positive && `${positive.type}=True${positive.message ? `: ${positive.message}` : ""}`;
}

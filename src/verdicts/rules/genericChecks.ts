// Checks that hold for every kind and run before its rule, as kstatus's checkGenericProperties:
// whatever a status says, it is not read while the object is going away or describes an older
// spec than the one applied.
//
// One exception, for controllers known to leave status.observedGeneration behind on a failed
// reconcile (kustomize-controller moves it only when Ready turns True, so a first build that fails
// stays at -1, the CRD's default): a failure their rule reads from conditions stamped with the
// object's generation counts at once. Waiting for an observedGeneration such a controller never
// writes would spend the whole budget on an error it already reported. Only a failure passes that
// way, never a success: a Ready=True beside a lagging observedGeneration still waits.
import type { Condition } from "../../kube/objects.js";
import { pending, readingReasons, type ResourceReading } from "./reading.js";
import type { Rule, RuleInput } from "./input.js";
import { conditionsOf, negativeConditionTypes } from "./signals.js";

/**
 * A pending reading when a generic check holds the resource back; undefined to let its rule decide.
 * `failureDespiteLag` is the kind's rule when its controller leaves observedGeneration behind on failure.
 */
export function checkGeneric(input: RuleInput, failureDespiteLag?: Rule): ResourceReading | undefined {
  const { object, requestedGeneration } = input;
  const { deletionTimestamp, generation } = object.metadata;
  if (deletionTimestamp !== undefined) {
    // Pending, not failed: finalizers can hold a deleting object for a while, and the delete event
    // that follows starts the re-create grace (a `kubectl replace --force` comes back).
    return pending(readingReasons.terminating, `being deleted since ${deletionTimestamp}`);
  }
  // Kinds without a spec (ConfigMap, Secret, Service...) carry no generation: nothing to wait for.
  if (requestedGeneration !== undefined && generation !== undefined && generation < requestedGeneration) {
    return pending(readingReasons.waitingForGeneration, `waiting for generation ${requestedGeneration} (cluster has ${generation})`);
  }
  const observed = object.status?.observedGeneration;
  if (observed !== undefined && generation !== undefined && observed < generation) {
    const failure = failureDespiteLag && failureAtGeneration(input, generation, failureDespiteLag);
    if (failure) return failure;
    return pending(
      readingReasons.generationNotObserved,
      `generation ${generation} not yet observed by its controller (status is for ${observed})${conditionsSaid(conditionsOf(object), generation)}`,
    );
  }
  return undefined;
}

/**
 * The rule's reading when it is a failure on the conditions written for this generation alone: a
 * condition without observedGeneration, or stamped older, may be what the previous spec earned.
 */
function failureAtGeneration(input: RuleInput, generation: number, rule: Rule): ResourceReading | undefined {
  const conditions = conditionsOf(input.object).filter((c) => typeof c.observedGeneration === "number" && c.observedGeneration >= generation);
  if (conditions.length === 0) return undefined;
  const reading = rule({ ...input, object: { ...input.object, status: { ...input.object.status, conditions } } });
  return reading.state === "failed" ? reading : undefined;
}

// What speaks against the object first, so that the cut at the message's bound drops the least of it.
function weight(c: Condition): number {
  if (negativeConditionTypes.includes(c.type) && c.status === "True") return 0;
  return c.type === "Ready" ? 1 : 2;
}

/** The conditions' own words, `; Ready=False BuildFailed: <message>`, each marked when written for an older generation. */
function conditionsSaid(conditions: readonly Condition[], generation: number): string {
  return [...conditions]
    .sort((a, b) => weight(a) - weight(b))
    .map((c) => {
      const older = typeof c.observedGeneration === "number" && c.observedGeneration < generation ? ` (for generation ${c.observedGeneration})` : "";
      return `; ${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ""}${older}${c.message ? `: ${c.message}` : ""}`;
    })
    .join("");
}

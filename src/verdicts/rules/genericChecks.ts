// Checks that hold for every kind and run before its rule, as kstatus's checkGenericProperties:
// whatever a status says, it is not read while the object is going away or describes an older
// spec than the one applied.
import { pending, readingReasons, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

/** A pending reading when a generic check holds the resource back; undefined to let its rule decide. */
export function checkGeneric({ object, requestedGeneration }: RuleInput): ResourceReading | undefined {
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
    return pending(
      readingReasons.generationNotObserved,
      `generation ${generation} not yet observed by its controller (status is for ${observed})`,
    );
  }
  return undefined;
}

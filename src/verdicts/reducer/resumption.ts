// Taking up an observation another replica (or this one, before a restart) began: the state is
// rebuilt from what its record holds, never from the cluster alone (SPEC section 10).
//
// - The id, the start and the absolute deadline are the record's: the budget is never restarted.
// - A resource that was settled or failed stays so and is never read again: a bootstrap Job that
//   completed and was then removed by its TTL still counts, a failure beyond the required stage
//   stays recorded.
// - A pending resource keeps its last reading (what a timeout names if nothing newer arrives) but
//   counts as not yet seen: it is read afresh from the informers, and the absence grace after the
//   new owner's caches sync decides whether it still exists.
// - Stages reached stay reached; a verification window under way keeps its start and end.
import { identityKey } from "../contract/kinds.js";
import { isBootstrapJob } from "./bootstrap.js";
import { replaceResource, startObservation, type ObservationState, type StartObservationInput } from "./observationState.js";
import type { ObservationVerdict } from "../contract/schemas.js";
import type { Parsed } from "../contract/validation.js";
import { resumedWindow } from "./verificationWindow.js";

export interface ResumeObservationInput extends StartObservationInput {
  /** The verdict the record holds: how far the observation got, resource by resource. */
  readonly verdict: ObservationVerdict;
  /** Identity keys of resources found to be bootstrap Jobs by their label (the verdict does not say). */
  readonly labelledBootstrap?: readonly string[];
}

export function resumeObservation(input: ResumeObservationInput): Parsed<ObservationState> {
  // The outlook is the one read when the observation began: an adopter shows the same expectation.
  const { comparison: _decidedOnly, ...outlook } = input.verdict.history ?? { earlier: 0, stages: {} };
  const started = startObservation({ ...input, ...(input.verdict.history && { outlook }) });
  if (!started.ok) return started;
  let state = started.value;
  const labelled = new Set(input.labelledBootstrap ?? []);
  for (const recorded of input.verdict.resources) {
    const key = identityKey(recorded.identity);
    const resource = state.resources.get(key);
    if (resource === undefined) continue;
    const reading = {
      state: recorded.state,
      message: recorded.message ?? "",
      ...(recorded.reason !== undefined && { reason: recorded.reason }),
      // What a settled workload ran stays its evidence: it is never read again.
      ...(recorded.images !== undefined && { images: recorded.images }),
    };
    const bootstrap = labelled.has(key) || isBootstrapJob(resource.identity);
    // Decided resources were seen: the uid only keeps them out of the absence count, which is for
    // pending resources never seen since this state began.
    const decided = recorded.state !== "pending";
    state = replaceResource(state, key, {
      ...resource,
      bootstrap,
      applied: decided,
      ...(decided && { uid: "(recorded)" }),
      reading,
    });
  }
  const { verification } = input.verdict;
  // A window under way keeps its start and end: like the budget, it is never restarted.
  const window = verification && state.verify ? resumedWindow(state.verify, verification) : undefined;
  return { ok: true, value: { ...state, reached: input.verdict.reached, ...(window && { window }) } };
}

/** The keys whose bootstrap flag came from the object's label, for the record (see resumeObservation). */
export function labelledBootstrapKeys(state: ObservationState): string[] {
  return [...state.resources].flatMap(([key, resource]) => (resource.bootstrap && !isBootstrapJob(resource.identity) ? [key] : []));
}

// Stages are cumulative (SPEC section 2): applied < bootstrapped < healthy. The reducer advances
// them one at a time from the stage already reached, each stage checking only its own condition on
// top of the earlier ones having been reached. A stage once reached stays reached, so a Deployment
// deleted after `applied` held blocks `healthy` (it will never settle), not `bootstrapped`: the
// bootstrap barrier is about bootstrap Jobs, and reads that way in a verdict.
//
// `verified` comes after `healthy` and no resource holds it back: every resource supports it once
// settled, and the reducer reaches it itself when the soak window ends (reducer/verificationWindow.ts).
import { stages, type ReachedStage, type ResourceStage, type Stage } from "./schemas.js";

/** What a stage needs to know about one declared resource. */
export interface StageFacts {
  /** Exists (seen with a UID) at or after the generation the request names. */
  readonly applied: boolean;
  readonly bootstrap: boolean;
  readonly settled: boolean;
}

export function stageRank(stage: ReachedStage): number {
  return stage === "none" ? 0 : stages.indexOf(stage) + 1;
}

/** The stages after `from` up to and including `to`, in order (`none`..`healthy` gives the first three). */
export function stagesBetween(from: ReachedStage, to: ReachedStage): Stage[] {
  return stages.filter((stage) => stageRank(stage) > stageRank(from) && stageRank(stage) <= stageRank(to));
}

const resourceStages: readonly ResourceStage[] = ["applied", "bootstrapped", "healthy"];

/** A stage's own condition for one resource, given every earlier stage was reached. */
function supports(stage: Stage, facts: StageFacts): boolean {
  switch (stage) {
    case "applied":
      return facts.applied;
    case "bootstrapped":
      return !facts.bootstrap || facts.settled;
    case "healthy":
    case "verified":
      return facts.settled;
  }
}

/**
 * Per stage, how many resources hold it back (do not support it). Sums over resources, so the
 * reducer keeps one running total per observation instead of asking every resource on each event.
 */
export type StageHoldouts = Readonly<Record<ResourceStage, number>>;

export const noHoldouts: StageHoldouts = { applied: 0, bootstrapped: 0, healthy: 0 };

/** `holdouts` with one resource's share added (`sign` 1) or taken out (`sign` -1). */
export function addHoldouts(holdouts: StageHoldouts, facts: StageFacts, sign: 1 | -1): StageHoldouts {
  const share = (stage: Stage) => (supports(stage, facts) ? 0 : sign);
  return {
    applied: holdouts.applied + share("applied"),
    bootstrapped: holdouts.bootstrapped + share("bootstrapped"),
    healthy: holdouts.healthy + share("healthy"),
  };
}

/** The highest resource stage reached: `reached`, advanced while no resource holds the next one back. */
export function advanceStageBy(reached: ReachedStage, holdouts: StageHoldouts): ReachedStage {
  let current = reached;
  for (const stage of resourceStages) {
    if (stageRank(stage) <= stageRank(reached)) continue;
    if (holdouts[stage] > 0) break;
    current = stage;
  }
  return current;
}

/**
 * The first stage after `reached` that this resource keeps from being reached, if any: the stage
 * its failure fails, or the one a timeout names it for. A settled resource blocks nothing; a
 * bootstrap Job that does not exist blocks `applied` before it blocks `bootstrapped`.
 */
export function blockedStage(facts: StageFacts, reached: ReachedStage): Stage | undefined {
  return stages.find((stage) => stageRank(stage) > stageRank(reached) && !supports(stage, facts));
}

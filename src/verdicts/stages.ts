// Stages are cumulative (SPEC section 2): applied < bootstrapped < healthy, each holding only when
// every earlier one does. These functions read them off the per-resource facts the reducer keeps.
import { stages, type ReachedStage, type Stage } from "./schemas.js";

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

export function laterStage(a: ReachedStage, b: ReachedStage): ReachedStage {
  return stageRank(a) >= stageRank(b) ? a : b;
}

/** The stages after `from` up to and including `to`, in order (`none`..`healthy` gives all three). */
export function stagesBetween(from: ReachedStage, to: ReachedStage): Stage[] {
  return stages.filter((stage) => stageRank(stage) > stageRank(from) && stageRank(stage) <= stageRank(to));
}

function holds(stage: Stage, facts: StageFacts): boolean {
  switch (stage) {
    case "applied":
      return facts.applied;
    case "bootstrapped":
      return facts.applied && (!facts.bootstrap || facts.settled);
    case "healthy":
      return facts.applied && facts.settled;
  }
}

/** The highest stage every resource supports. */
export function stageOf(resources: Iterable<StageFacts>): ReachedStage {
  const all = [...resources];
  let reached: ReachedStage = "none";
  for (const stage of stages) {
    if (!all.every((facts) => holds(stage, facts))) break;
    reached = stage;
  }
  return reached;
}

/**
 * The first stage after `reached` that this resource keeps from holding, if any: the stage its
 * failure fails, or the one a timeout names it for. A settled resource blocks nothing; a Job that
 * never existed blocks `applied` before it blocks `bootstrapped`.
 */
export function blockedStage(facts: StageFacts, reached: ReachedStage): Stage | undefined {
  return stages.find((stage) => stageRank(stage) > stageRank(reached) && !holds(stage, facts));
}

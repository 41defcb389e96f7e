// How long a deployment usually takes (issue 22): a bounded history of its recent observations
// and the estimate read off it. Pure: the history is stored by the bus, the clock passed in.
//
// Quantiles are nearest-rank (the smallest earlier duration that at least q of them did not
// exceed), not interpolated: with the handful of rollouts a history often holds, "90% within
// 2m05s" is then literally true of the rollouts it counts, and every figure shown is a duration
// some rollout really took.
import { z } from "zod";
import {
  HistoryComparison,
  Outcome,
  ReachedStage,
  Stage,
  historyLimit,
  stages,
  type Expectation,
  type HistoryOutlook,
  type ObservationVerdict,
  type StageEstimate,
} from "../contract/schemas.js";
import type { Timeline } from "../contract/timeline.js";
import { formatDuration, plural } from "../text/text.js";

/**
 * Earlier successes needed at a stage before `--stall auto` trusts its 95th percentile: with fewer,
 * one unusually quick rollout would make every ordinary one look stalled.
 */
export const minAutoStallSamples = 3;
/**
 * The quantile `--stall auto` announces past: slower than about 19 in 20 earlier rollouts at that
 * stage. A notice fails nothing, so one false notice in twenty ordinary rollouts is a fair price for
 * hearing early about the twenty-first; a higher quantile of 50 rollouts is their maximum, a single
 * outlier that would silence the notice for as long as it stays in the history.
 */
export const autoStallQuantile = 0.95;
/**
 * The earliest `--stall auto` speaks, whatever the history says: a stage earlier rollouts reached
 * in a fraction of a second (applied, right after the caches synced) is not stalled a second
 * later, and a notice about it would be noise.
 */
export const minAutoStallSeconds = 5;

export { historyLimit };

const isoTime = z.iso.datetime({ offset: true });

/** One earlier observation: durations to each stage for a success, the outcome alone for the rest. */
export const HistoryEntry = z.object({
  observationId: z.string(),
  outcome: Outcome,
  required: Stage,
  reached: ReachedStage,
  startedAt: isoTime,
  decidedAt: isoTime,
  /** Seconds from the request to each stage reached; only for observations that succeeded. */
  stageSeconds: z.partialRecord(Stage, z.number().nonnegative()).optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntry>;

/** Oldest first, at most historyLimit. */
export const DeploymentHistory = z.object({ entries: z.array(HistoryEntry).max(historyLimit) });
export type DeploymentHistory = z.infer<typeof DeploymentHistory>;

export const emptyHistory: DeploymentHistory = { entries: [] };

/** The smallest value at least `q` of `sorted` (ascending, not empty) do not exceed. */
export function nearestRank(sorted: readonly number[], q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}

/** The estimate for `stage` from the successes that reached it, if any did. */
export function estimateStage(history: DeploymentHistory, stage: Stage): StageEstimate | undefined {
  const durations = history.entries
    .flatMap((entry) => (entry.outcome === "succeeded" && entry.stageSeconds?.[stage] !== undefined ? [entry.stageSeconds[stage]] : []))
    .toSorted((a, b) => a - b);
  if (durations.length === 0) return undefined;
  return {
    samples: durations.length,
    medianSeconds: nearestRank(durations, 0.5),
    p90Seconds: nearestRank(durations, 0.9),
    p95Seconds: nearestRank(durations, autoStallQuantile),
    earlierSeconds: durations,
  };
}

/** What the history says as an observation begins. */
export function outlookOf(history: DeploymentHistory): HistoryOutlook {
  const estimates: Partial<Record<Stage, StageEstimate>> = {};
  for (const stage of stages) {
    const estimate = estimateStage(history, stage);
    if (estimate) estimates[stage] = estimate;
  }
  return { earlier: history.entries.length, stages: estimates };
}

/** A rollout's time as people read it: `1m12s`, and tenths under 10 s, where `0s` would say nothing. */
export function formatRolloutTime(seconds: number): string {
  return seconds < 9.95 ? `${seconds.toFixed(1)}s` : formatDuration(seconds * 1000);
}

/** `usually 1m12s, 90% within 2m5s, from 23 earlier rollouts`. */
export function expectationMessage(estimate: StageEstimate): string {
  return `usually ${formatRolloutTime(estimate.medianSeconds)}, 90% within ${formatRolloutTime(estimate.p90Seconds)}, from ${plural(estimate.samples, "earlier rollout")}`;
}

/** The expectation for `stage`, when earlier rollouts reached it. */
export function expectationOf(outlook: HistoryOutlook | undefined, stage: Stage): Expectation | undefined {
  const estimate = outlook?.stages[stage];
  if (!estimate) return undefined;
  const { earlierSeconds: _kept, ...figures } = estimate;
  return { stage, ...figures, message: expectationMessage(estimate) };
}

/** How a rollout that reached `stage` in `seconds` compares with the earlier ones. */
export function compareWithHistory(outlook: HistoryOutlook | undefined, stage: Stage, seconds: number): HistoryComparison | undefined {
  const estimate = outlook?.stages[stage];
  if (!estimate) return undefined;
  const fasterThan = estimate.earlierSeconds.filter((earlier) => earlier > seconds).length;
  const took = formatRolloutTime(seconds);
  const where =
    seconds > estimate.p90Seconds ? `slower than 90% of ${plural(estimate.samples, "earlier rollout")}` : `faster than ${fasterThan} of ${plural(estimate.samples, "earlier rollout")}`;
  return {
    stage,
    seconds,
    samples: estimate.samples,
    medianSeconds: estimate.medianSeconds,
    p90Seconds: estimate.p90Seconds,
    fasterThan,
    message: `${stage} in ${took}: ${where} (${expectationMessage(estimate)})`,
  };
}

/** The history with `entry` added (once: a verdict delivered twice is counted once), the oldest dropped past the limit. */
export function appendToHistory(history: DeploymentHistory, entry: HistoryEntry, limit = historyLimit): DeploymentHistory {
  if (history.entries.some((earlier) => earlier.observationId === entry.observationId)) return history;
  return { entries: [...history.entries, entry].slice(-limit) };
}

/** When `--stall auto` speaks at a stage, in seconds from the request: the 95th percentile of earlier times to it, at least minAutoStallSeconds. */
export interface AutoStallThreshold {
  readonly estimate: StageEstimate;
  readonly thresholdSeconds: number;
}

/** The threshold at `stage`, once there are enough earlier successes to judge it by. */
export function autoStallThreshold(outlook: HistoryOutlook | undefined, stage: Stage): AutoStallThreshold | undefined {
  const estimate = outlook?.stages[stage];
  if (!estimate || estimate.samples < minAutoStallSamples) return undefined;
  return { estimate, thresholdSeconds: Math.max(estimate.p95Seconds, minAutoStallSeconds) };
}

/**
 * A decided observation as its deployment's history keeps it: from the verdict and the record's
 * timeline (when each stage was reached), so an observation adopted mid-way counts from its start.
 */
export function historyEntryOf(verdict: ObservationVerdict, timeline: Timeline): HistoryEntry {
  const startedAtMs = Date.parse(verdict.startedAt);
  const stageSeconds: Partial<Record<Stage, number>> = {};
  for (const stage of stages) {
    const atMs = timeline.stages[stage];
    if (atMs !== undefined) stageSeconds[stage] = Math.max(0, (atMs - startedAtMs) / 1000);
  }
  return {
    observationId: verdict.observationId,
    outcome: verdict.outcome,
    required: verdict.required,
    reached: verdict.reached,
    startedAt: verdict.startedAt,
    decidedAt: verdict.decidedAt ?? verdict.startedAt,
    ...(verdict.outcome === "succeeded" && { stageSeconds }),
  };
}

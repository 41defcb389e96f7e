import { describe, expect, it } from "vitest";
import {
  appendToHistory,
  autoStallThreshold,
  compareWithHistory,
  emptyHistory,
  estimateStage,
  expectationOf,
  historyEntryOf,
  nearestRank,
  outlookOf,
  type DeploymentHistory,
  type HistoryEntry,
} from "./history.js";
import type { ObservationVerdict } from "../contract/schemas.js";
import { successEntry } from "../../../test/fixtures/history.js";

let counter = 0;
/** A success that reached healthy in `healthy` seconds (applied at a tenth of it). */
const success = (healthy: number): HistoryEntry => successEntry(`obs-${++counter}`, healthy);

function failure(): HistoryEntry {
  counter += 1;
  return { observationId: `obs-${counter}`, outcome: "failed", required: "healthy", reached: "applied", startedAt: "2026-12-01T10:00:00Z", decidedAt: "2026-12-01T10:01:00Z" };
}

const historyOf = (entries: HistoryEntry[]): DeploymentHistory => ({ entries });

describe("the estimate of a deployment's time to a stage", () => {
  it("says nothing for an empty history, or one of failures only", () => {
    expect(estimateStage(emptyHistory, "healthy")).toBeUndefined();
    expect(estimateStage(historyOf([failure(), failure()]), "healthy")).toBeUndefined();
    expect(outlookOf(historyOf([failure()]))).toEqual({ earlier: 1, stages: {} });
  });

  it("with one earlier rollout, every figure is that rollout's", () => {
    expect(estimateStage(historyOf([success(72)]), "healthy")).toEqual({ samples: 1, medianSeconds: 72, p90Seconds: 72, p95Seconds: 72, earlierSeconds: [72] });
  });

  it("a skewed history: the median stays with the usual rollouts, the high quantiles take the slow tail", () => {
    // 18 rollouts around a minute, two that took ten times as long.
    const entries = [...Array.from({ length: 18 }, (_, i) => success(55 + i)), success(600), success(700)];
    const estimate = estimateStage(historyOf(entries), "healthy")!;
    expect(estimate.samples).toBe(20);
    expect(estimate.medianSeconds).toBe(64); // the 10th of 20, sorted
    expect(estimate.p90Seconds).toBe(72); // the 18th: the slowest usual one; the two outliers are the 10% above
    expect(estimate.p95Seconds).toBe(600); // the 19th
  });

  it("a bimodal history (cached image or cold pull): the median is the fast mode, 90% covers the slow one", () => {
    const entries = [...Array.from({ length: 12 }, () => success(20)), ...Array.from({ length: 8 }, () => success(180))];
    const estimate = estimateStage(historyOf(entries), "healthy")!;
    expect(estimate.medianSeconds).toBe(20);
    expect(estimate.p90Seconds).toBe(180);
    expect(expectationOf(outlookOf(historyOf(entries)), "healthy")?.message).toBe("usually 20s, 90% within 3m0s, from 20 earlier rollouts");
  });

  it("nearest rank: at least the quantile of the values are at or below the figure, and it is one of them", () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(nearestRank(sorted, 0.5)).toBe(5);
    expect(nearestRank(sorted, 0.9)).toBe(9);
    expect(nearestRank(sorted, 0.95)).toBe(10);
    expect(nearestRank([42], 0.5)).toBe(42);
  });

  it("counts only the stages each success reached, from its own required stage", () => {
    const appliedOnly: HistoryEntry = { ...success(30), required: "applied", reached: "applied", stageSeconds: { applied: 3 } };
    const outlook = outlookOf(historyOf([appliedOnly, success(50)]));
    expect(outlook.stages.applied?.samples).toBe(2);
    expect(outlook.stages.healthy?.samples).toBe(1);
    expect(outlook.stages.bootstrapped?.samples).toBe(1);
  });
});

describe("the history itself", () => {
  it("keeps the newest 50 and counts an observation once", () => {
    let history = emptyHistory;
    const entries = Array.from({ length: 55 }, (_, i) => success(i + 1));
    for (const entry of entries) history = appendToHistory(history, entry);
    expect(history.entries).toHaveLength(50);
    expect(history.entries[0]!.observationId).toBe(entries[5]!.observationId);
    expect(appendToHistory(history, entries[54]!)).toBe(history);
  });

  it("an entry records the times to each stage of a success, from the record's timeline, and the outcome alone otherwise", () => {
    const verdict = {
      observationId: "o1",
      key: "k",
      deployment: "payments",
      required: "healthy",
      reached: "healthy",
      outcome: "succeeded",
      resources: [],
      message: "",
      startedAt: "2026-12-01T10:00:00.000Z",
      deadline: "2026-12-01T10:05:00.000Z",
      decidedAt: "2026-12-01T10:01:12.000Z",
    } satisfies ObservationVerdict;
    const startMs = Date.parse(verdict.startedAt);
    const timeline = { stages: { applied: startMs + 2_000, bootstrapped: startMs + 2_000, healthy: startMs + 72_000 }, resources: {}, notices: [] };
    expect(historyEntryOf(verdict, timeline).stageSeconds).toEqual({ applied: 2, bootstrapped: 2, healthy: 72 });
    expect(historyEntryOf({ ...verdict, outcome: "timed_out", reached: "applied" }, timeline).stageSeconds).toBeUndefined();
  });
});

describe("comparison and the auto stall threshold", () => {
  const outlook = outlookOf(historyOf([success(60), success(70), success(80), success(90), success(100)]));

  it("ranks a success among the earlier rollouts", () => {
    expect(compareWithHistory(outlook, "healthy", 75)).toMatchObject({ fasterThan: 3, samples: 5, medianSeconds: 80, message: "healthy in 1m15s: faster than 3 of 5 earlier rollouts (usually 1m20s, 90% within 1m40s, from 5 earlier rollouts)" });
    expect(compareWithHistory(outlook, "healthy", 300)?.message).toMatch(/^healthy in 5m0s: slower than 90% of 5 earlier rollouts/);
    expect(compareWithHistory(outlookOf(historyOf([failure()])), "healthy", 10)).toBeUndefined();
  });

  it("needs three earlier successes at a stage before it judges a stall there", () => {
    expect(autoStallThreshold(outlook, "healthy")).toMatchObject({ thresholdSeconds: 100, estimate: { p95Seconds: 100 } });
    // Never sooner than 5 s: a stage that took a fraction of a second is not stalled a second later.
    expect(autoStallThreshold(outlookOf(historyOf([success(1), success(1.5), success(2)])), "applied")?.thresholdSeconds).toBe(5);
    const two = outlookOf(historyOf([success(60), success(70)]));
    expect(autoStallThreshold(two, "healthy")).toBeUndefined();
    expect(autoStallThreshold(undefined, "healthy")).toBeUndefined();
  });
});

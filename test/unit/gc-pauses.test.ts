import { describe, expect, it } from "vitest";
import { gcInWindow, summarizeGcPauses, type GcPause } from "../../bench/cluster/gcPauses.ts";

// Pauses as gc-pauses-on-signal.ts writes them: CLOCK_MONOTONIC microseconds, V8's durations in ms.
const pauses: GcPause[] = [
  { kind: "scavenge", startUs: 1_000_000, ms: 2.5 },
  { kind: "mark-compact", startUs: 1_010_000, ms: 180 },
  { kind: "scavenge", startUs: 1_300_000, ms: 4 },
  { kind: "incremental", startUs: 1_400_000, ms: 0.4 },
];

describe("the service's GC pauses laid over a verdict's window", () => {
  it("counts only the part of a pause inside the window, and names the longest pause that overlaps it", () => {
    // From 50 ms into the mark-compact to just after the second scavenge ends.
    expect(gcInWindow(pauses, 1_060_000, 1_305_000)).toEqual({ gcMs: 134, longestGcMs: 180 });
  });

  it("says 0 for a window no pause touches, and for one that ends where a pause starts", () => {
    expect(gcInWindow(pauses, 1_200_000, 1_300_000)).toEqual({ gcMs: 0, longestGcMs: 0 });
    expect(gcInWindow(pauses, 1_003_000, 1_009_000)).toEqual({ gcMs: 0, longestGcMs: 0 });
  });

  it("sums the phase by kind and lists the longest pauses first", () => {
    const summary = summarizeGcPauses(pauses, 2);
    expect(summary.byKind).toEqual({
      scavenge: { count: 2, ms: 7, maxMs: 4 },
      "mark-compact": { count: 1, ms: 180, maxMs: 180 },
      incremental: { count: 1, ms: 0, maxMs: 0.4 },
    });
    expect(summary.longest.map((pause) => pause.ms)).toEqual([180, 4]);
  });
});

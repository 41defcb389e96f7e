// The service's garbage-collection pauses over the measured phase, each on the monotonic clock the
// slowest verdicts' windows are stamped in (scale.ts), so an unprofiled run can say which of its
// slowest verdicts waited on a collection: the CPU profiler that tells it otherwise (profileWindows.ts)
// raises the service's CPU and memory, so its run's totals cannot be read beside the goals.
// gc-pauses-on-signal.ts records them inside the service; this file is what the benchmark reads.
import { readFileSync } from "node:fs";

/** One pause as V8 reported it (a PerformanceObserver's `gc` entry). */
export interface GcPause {
  /** scavenge, mark-compact, incremental (marking steps), weak callbacks (node:perf_hooks' GC kinds). */
  kind: string;
  /** CLOCK_MONOTONIC microseconds. */
  startUs: number;
  ms: number;
}

export const gcKinds: Record<number, string> = { 1: "scavenge", 2: "mark-compact", 4: "incremental", 8: "weak callbacks" };

/** The pauses gc-pauses-on-signal.ts wrote, or undefined when it wrote none (no file, not loaded). */
export function readGcPauses(file: string): GcPause[] | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as GcPause[];
  } catch {
    return undefined;
  }
}

/** Of the pauses, the time inside (fromUs, toUs] and the longest one overlapping it. */
export function gcInWindow(pauses: readonly GcPause[], fromUs: number, toUs: number): { gcMs: number; longestGcMs: number } {
  let gcUs = 0;
  let longestMs = 0;
  for (const pause of pauses) {
    const endUs = pause.startUs + pause.ms * 1000;
    const overlapUs = Math.min(endUs, toUs) - Math.max(pause.startUs, fromUs);
    if (overlapUs <= 0) continue;
    gcUs += overlapUs;
    longestMs = Math.max(longestMs, pause.ms);
  }
  return { gcMs: Math.round(gcUs / 100) / 10, longestGcMs: Math.round(longestMs * 10) / 10 };
}

/** The phase's pauses in short: how many of each kind, their total, and the longest ones. */
export function summarizeGcPauses(pauses: readonly GcPause[], longest = 10) {
  const byKind: Record<string, { count: number; ms: number; maxMs: number }> = {};
  for (const { kind, ms } of pauses) {
    const entry = (byKind[kind] ??= { count: 0, ms: 0, maxMs: 0 });
    entry.count += 1;
    entry.ms += ms;
    entry.maxMs = Math.max(entry.maxMs, ms);
  }
  for (const entry of Object.values(byKind)) {
    entry.ms = Math.round(entry.ms);
    entry.maxMs = Math.round(entry.maxMs * 10) / 10;
  }
  const top = [...pauses].sort((a, b) => b.ms - a.ms).slice(0, longest).map((pause) => ({ ...pause, ms: Math.round(pause.ms * 10) / 10 }));
  return { byKind, longest: top };
}

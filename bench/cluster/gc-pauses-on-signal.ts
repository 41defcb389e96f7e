// Loaded into `stagewatch serve` by the cluster benchmark (NODE_OPTIONS="--import=...") before
// gc-on-signal.ts, with STAGEWATCH_BENCH_GC_FILE naming where to write: the benchmark's first
// SIGUSR2 starts recording every garbage-collection pause (a PerformanceObserver's gc entries:
// V8 reports each, so nothing is sampled and nothing wakes the process), the second writes them
// (gcPauses.ts), before gc-on-signal's own collections, which are the benchmark's and not the
// service's. A pause is stamped on CLOCK_MONOTONIC, the clock of the benchmark's verdict windows.
import { writeFileSync } from "node:fs";
import { PerformanceObserver, type PerformanceEntry } from "node:perf_hooks";
import { toMonotonicUs } from "./clocks.ts";
import { gcKinds, type GcPause } from "./gcPauses.ts";

const file = process.env["STAGEWATCH_BENCH_GC_FILE"];

if (file !== undefined) {
  const pauses: GcPause[] = [];
  let recording = false;
  const observer = new PerformanceObserver((list) => {
    if (!recording) return;
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      const kind = entry.detail?.kind ?? 0;
      pauses.push({ kind: gcKinds[kind] ?? String(kind), startUs: Math.round(toMonotonicUs(entry.startTime)), ms: entry.duration });
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  let signals = 0;
  process.on("SIGUSR2", () => {
    signals += 1;
    if (signals === 1) recording = true;
    else if (signals === 2) {
      recording = false;
      writeFileSync(file, JSON.stringify(pauses));
    }
  });
}

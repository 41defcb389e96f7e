// The clocks the cluster benchmark's threads and the service speak to each other in. Each thread's
// performance.now() runs on the monotonic clock from that thread's start; CLOCK_MONOTONIC
// (process.hrtime) is one clock for every thread and process of the machine, the one V8 stamps a
// CPU profile in: stamps and pauses travel in it (stampThread.ts, gc-pauses-on-signal.ts) and are
// laid over each other in it (profileWindows.ts, gcPauses.ts).
import type { Histogram } from "node:perf_hooks";

// Taken when the module loads in this thread, minutes before any use.
const monotonicUsOffset = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;

/** This thread's performance.now() as CLOCK_MONOTONIC microseconds. */
export const toMonotonicUs = (ms: number): number => ms * 1000 + monotonicUsOffset;
/** CLOCK_MONOTONIC microseconds as this thread's performance.now(). */
export const fromMonotonicUs = (us: number): number => (us - monotonicUsOffset) / 1000;

/** An event-loop delay histogram (monitorEventLoopDelay, nanoseconds) in milliseconds to a tenth. */
export function loopDelayOf(histogram: Histogram): { p99Ms: number; maxMs: number } {
  return { p99Ms: Math.round(histogram.percentile(99) / 1e5) / 10, maxMs: Math.round(histogram.max / 1e5) / 10 };
}

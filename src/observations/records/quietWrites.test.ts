// The engine's one queue of quiet record writes: each runs once it is due, in due order, never
// before; a dropped one never runs; and a burst that came due together is written in slices, the
// loop given back between two (what 10,000 observations' timers firing in one turn did not).
import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import { QuietWrites, quietWriteSliceMs } from "./quietWrites.js";

/** A real clock stand-in that moves only when a write says it took time. */
function fakeClock() {
  let ms = 0;
  return { now: () => ms, spend: (spent: number) => void (ms += spent) };
}

describe("QuietWrites", () => {
  it("runs each write once it is due, in due order, and never one that was dropped", () => {
    const scheduler = new VirtualTimeScheduler();
    const clock = fakeClock();
    const writes = new QuietWrites(scheduler, clock.now);
    const ran: string[] = [];
    writes.schedule(() => ran.push("obs-1"), 2_000);
    const dropped = writes.schedule(() => ran.push("obs-2"), 2_000);
    writes.schedule(() => ran.push("obs-3"), 1_000);
    dropped.unsubscribe();
    scheduler.maxFrames = 1_000;
    scheduler.flush();
    expect(ran).toEqual(["obs-3"]);
    expect(scheduler.now()).toBe(1_000);
    scheduler.maxFrames = 2_000;
    scheduler.flush();
    expect(ran).toEqual(["obs-3", "obs-1"]);
    expect(writes.size).toBe(0);
  });

  it("writes a burst that came due together in slices of bounded time, yielding between them", () => {
    const scheduler = new VirtualTimeScheduler();
    const clock = fakeClock();
    const writes = new QuietWrites(scheduler, clock.now);
    const slices: number[][] = [];
    let slice: number[] = [];
    const burst = 10_000;
    for (let i = 0; i < burst; i++) {
      writes.schedule(() => {
        slice.push(i);
        // Each write builds a verdict and sends a compare-and-swap: a quarter of a millisecond.
        clock.spend(0.25);
      }, 2_000);
    }
    // A slice ends when the scheduler's next action runs: mark the boundaries from a timer of our own.
    const sliceEnds = (): void => {
      if (slice.length > 0) slices.push(slice);
      slice = [];
    };
    const original = scheduler.schedule.bind(scheduler);
    scheduler.schedule = ((work: () => void, delay?: number) => {
      sliceEnds();
      return original(work, delay);
    }) as typeof scheduler.schedule;
    scheduler.flush();
    sliceEnds();
    expect(slices.flat()).toEqual(Array.from({ length: burst }, (_, i) => i));
    // 5 ms of quarter-millisecond writes: 20 a slice, not 10,000 in one turn.
    expect(Math.max(...slices.map((s) => s.length))).toBe(quietWriteSliceMs / 0.25);
    expect(slices.length).toBe(burst / (quietWriteSliceMs / 0.25));
  });

  it("drops every write waiting when stopped", () => {
    const scheduler = new VirtualTimeScheduler();
    const writes = new QuietWrites(scheduler, fakeClock().now);
    const ran: number[] = [];
    writes.schedule(() => ran.push(1), 2_000);
    writes.stop();
    scheduler.flush();
    expect(ran).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { busySteps, summarizeWindow, timeline, type CpuProfile } from "../../bench/cluster/profileWindows.ts";

// A profile as V8 writes it: a tree of frames, one leaf id per sample, each sample's delta the
// time since the one before, on the monotonic clock in microseconds.
function profileOf(run: [name: string, ms: number][]): CpuProfile {
  const frames = ["(root)", "(idle)", "(garbage collector)", "parseJson", "decide"];
  const nodes = frames.map((name, i) => ({
    id: i + 1,
    callFrame: { functionName: name, url: name.startsWith("(") ? "" : "file:///app/dist/cli-bundle/chunk.js", lineNumber: i },
    ...(i === 0 && { children: [2, 3, 4, 5] }),
  }));
  const startTime = 5_000_000_000;
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  for (const [name, ms] of run) {
    // 1 ms samples, as the benchmark's profiler takes them.
    for (let i = 0; i < ms; i += 1) {
      samples.push(frames.indexOf(name) + 1);
      timeDeltas.push(1000);
    }
  }
  return { nodes, samples, timeDeltas, startTime, endTime: startTime + timeDeltas.reduce((a, b) => a + b, 0) };
}

describe("a CPU profile's windows and steps", () => {
  const profile = profileOf([["(idle)", 20], ["parseJson", 30], ["(garbage collector)", 15], ["decide", 5], ["(idle)", 10], ["decide", 12], ["(idle)", 8]]);
  const samples = timeline(profile);

  it("splits a window into busy, garbage collection and idle time, with its longest step and top functions", () => {
    // From 10 ms in to 90 ms in: 10 idle, then the 50 ms step, 10 idle, 10 of the 12 ms step.
    const window = summarizeWindow(samples, profile.startTime + 10_000, profile.startTime + 90_000);
    expect(window).toMatchObject({ ms: 80, busyMs: 60, gcMs: 15, idleMs: 20, longestStepMs: 50 });
    expect(window.topFunctions).toEqual([
      { name: "parseJson cli-bundle/chunk.js:4", ms: 30 },
      { name: "(garbage collector)", ms: 15 },
      { name: "decide cli-bundle/chunk.js:5", ms: 15 },
    ]);
  });

  it("finds the event loop's uninterrupted steps, longest first, with when they ended", () => {
    const steps = busySteps(profile, samples);
    expect(steps.atLeast).toEqual([
      { ms: 10, count: 2, seconds: 0.06 },
      { ms: 50, count: 1, seconds: 0.05 },
      { ms: 100, count: 0, seconds: 0 },
    ]);
    expect(steps.longest.map((step) => [step.endedAtSeconds, step.ms, step.busyMs, step.gcMs, step.idleMs])).toEqual([
      [0.07, 50, 50, 15, 0],
      [0.09, 12, 12, 0, 0],
    ]);
  });

  it("charges a sample taken after the process was descheduled with the whole gap", () => {
    const late = profileOf([["decide", 3]]);
    late.timeDeltas[1] = 40_000;
    const steps = busySteps(late, timeline(late));
    expect(steps.longest[0]).toMatchObject({ busyMs: 42, longestStepMs: 42 });
  });
});

// Where the wall-clock time of a slow verdict went, read off the service's CPU profile.
// V8 stamps a profile's samples in microseconds of the monotonic clock that process.hrtime reads
// (CLOCK_MONOTONIC on Linux), so a window the benchmark measured in its own process (from the
// decisive watch event to the verdict's arrival) can be laid over the service's samples as is.
// Within such a window the service was either running (a frame, garbage collection, V8's own
// "(program)") or idle (waiting on a socket): a window mostly idle spent its time outside the
// service's CPU (the server, the bus, the scheduler), one mostly busy says in which functions.
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** One sample: when it was taken (µs, monotonic), the time it stands for (µs), its leaf frame. */
interface Sample {
  atUs: number;
  us: number;
  name: string;
}

export interface WindowSummary {
  ms: number;
  busyMs: number;
  gcMs: number;
  idleMs: number;
  /** The longest run of consecutive busy samples inside the window: one step that held the event loop. */
  longestStepMs: number;
  topFunctions: { name: string; ms: number }[];
}

const IDLE = "(idle)";
const GC = "(garbage collector)";

/**
 * The samples in time order. Each sample's time is the delta before it (as DevTools and the
 * self-time summary count it), so a sample taken after the process was descheduled for 30 ms
 * carries those 30 ms: the time is charged to what was running when the process got the core back.
 */
export function timeline(profile: CpuProfile): Sample[] {
  const names = new Map(profile.nodes.map((node) => [node.id, frameName(node)]));
  const samples: Sample[] = [];
  let atUs = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    atUs += us;
    samples.push({ atUs, us, name: names.get(id) ?? "(unknown)" });
  });
  return samples;
}

/** A frame as the summaries name it: function, the file's last two path segments, line. */
export function frameName({ callFrame }: ProfileNode): string {
  if (callFrame.url === "") return callFrame.functionName || "(native)";
  const file = callFrame.url.split("/").slice(-2).join("/");
  return `${callFrame.functionName || "(anonymous)"} ${file}:${callFrame.lineNumber + 1}`;
}

/** What the samples taken in (fromUs, toUs] say about that stretch of wall-clock time. */
export function summarizeWindow(samples: readonly Sample[], fromUs: number, toUs: number, topN = 5): WindowSummary {
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  let gcUs = 0;
  let idleUs = 0;
  let stepUs = 0;
  let longestStepUs = 0;
  for (const sample of samplesWithin(samples, fromUs, toUs)) {
    if (sample.name === IDLE) {
      idleUs += sample.us;
      stepUs = 0;
      continue;
    }
    busyUs += sample.us;
    if (sample.name === GC) gcUs += sample.us;
    stepUs += sample.us;
    longestStepUs = Math.max(longestStepUs, stepUs);
    byFunction.set(sample.name, (byFunction.get(sample.name) ?? 0) + sample.us);
  }
  const ms = (us: number) => Math.round(us / 100) / 10;
  return {
    ms: ms(toUs - fromUs),
    busyMs: ms(busyUs),
    gcMs: ms(gcUs),
    idleMs: ms(idleUs),
    longestStepMs: ms(longestStepUs),
    topFunctions: [...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, topN)
      .map(([name, us]) => ({ name, ms: ms(us) })),
  };
}

function* samplesWithin(samples: readonly Sample[], fromUs: number, toUs: number): Generator<Sample> {
  // A sample stands for the time before it, so one taken at fromUs lies outside. Samples are in
  // time order: a binary search finds the first, so many windows stay cheap.
  let low = 0;
  let high = samples.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (samples[middle]!.atUs <= fromUs) low = middle + 1;
    else high = middle;
  }
  for (let i = low; i < samples.length && samples[i]!.atUs <= toUs; i += 1) yield samples[i]!;
}

export interface BusySteps {
  /** Steps (runs of consecutive busy samples) of at least 10, 50 and 100 ms: how many, and their time. */
  atLeast: { ms: number; count: number; seconds: number }[];
  /** The longest steps, when they ended (seconds into the profile) and what ran in them. */
  longest: (WindowSummary & { endedAtSeconds: number })[];
}

/** The event loop's longest uninterrupted stretches over the whole profile. */
export function busySteps(profile: CpuProfile, samples: readonly Sample[], topN = 10): BusySteps {
  const steps: { fromUs: number; toUs: number; us: number }[] = [];
  let current: { fromUs: number; toUs: number; us: number } | undefined;
  for (const sample of samples) {
    if (sample.name === IDLE) {
      if (current) steps.push(current);
      current = undefined;
      continue;
    }
    current ??= { fromUs: sample.atUs - sample.us, toUs: sample.atUs, us: 0 };
    current.toUs = sample.atUs;
    current.us += sample.us;
  }
  if (current) steps.push(current);
  const thresholds = [10, 50, 100];
  return {
    atLeast: thresholds.map((ms) => {
      const long = steps.filter((step) => step.us >= ms * 1000);
      return { ms, count: long.length, seconds: Math.round(long.reduce((all, step) => all + step.us, 0) / 1e4) / 100 };
    }),
    longest: [...steps]
      .sort((a, b) => b.us - a.us)
      .slice(0, topN)
      .map((step) => ({
        endedAtSeconds: Math.round((step.toUs - profile.startTime) / 1e4) / 100,
        ...summarizeWindow(samples, step.fromUs, step.toUs),
      })),
  };
}

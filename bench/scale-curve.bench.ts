// Past one machine (issue 21): the real engine (informers over the watch stand-in of bench/watch,
// driver, record writer, lease keeper, event publisher; bench/support/natsEngine.ts) against a real
// nats-server with JetStream, no control plane, at 20,000 to 200,000 pods and 1,000 or 10,000
// observations (one per Deployment, so pods per Deployment = pods / observations). Each size runs
// in a fresh child process of its own, with the service image's Node flags
// (`--max-semi-space-size=16`, Dockerfile), so its heap and RSS are its own; a fresh nats-server and
// stand-in each time. Per size:
// - initial list: from the first observation to every informer synced (pages of 500, as serve);
// - heap after two full collections with everything cached and observed, less the same before the
//   engine started, over the pods (so it carries the observations, Deployments and ReplicaSets
//   too: the two runs at 200,000 pods differ by 9,000 observations, which separates them), RSS,
//   V8's spaces, smaps_rollup, and VmHWM (the peak, reached during the list);
// - churn: `churnEvents` pod updates as fast as the stand-in writes them, each changing its pod
//   (restartCount up), one Deployment after another: CPU s per 1,000 watch events, events/s, the
//   event loop's longest delay, GC time;
// - decisive: each Deployment's rollout completing, `decisivePerSecond` of them (one decisive
//   event per observation, staggered, never all at once), while pod updates go on at
//   `podsPerSecond`: event to verdict (the engine's histogram: the decisive watch event received to
//   the verdict's stream acknowledgement) p50/p99/max, CPU, the event loop's longest delay;
// - relist: the pod watch answered with 410 Gone, and the relist that follows served every pod at
//   a new resourceVersion (bench/watch/scalePhases.ts), every observation decided by then: from
//   the 410 to the last pod applied, the event loop's longest delay, CPU, GC;
// - adoption: a second replica in the same process (its own NATS connection, lease keeper and
//   engine, the first one's informers) observes SCALE_CURVE_ADOPTIONS (default 5,000) Deployments
//   that are not there (pending for the hour), then hands them over as on SIGTERM; the measured
//   engine runs the Adopter as serve does and takes every one over at once: the event loop's
//   longest delay, CPU, GC, and the seconds until the last is driven here. VmHWM is read again
//   after the relist and after the adoption. The handing-over replica's lease releases run on the
//   same loop (in a cluster, in its own process), so:
// - takeover: a third replica observes as many, then stops without a word (as on a crash); when
//   its heartbeat has lapsed the measured engine takes every one over at once, alone on the loop:
//   the same figures, and the seconds from the stop until the last is driven here.
// The Deployments are spread over SCALE_CURVE_NAMESPACES namespaces (default 10).
// SCALE_CURVE_SIZES=pods x observations, comma-separated (default the four corners below);
// SCALE_CURVE_CHURN, SCALE_CURVE_DECISIVE_PER_SECOND, SCALE_CURVE_PODS_PER_SECOND, SCALE_CURVE_ADOPTIONS override;
// SCALE_CURVE_RESULTS names the results file. The children inherit the environment (MALLOC_*).
// SCALE_CURVE_BASELINE=<commit> runs each size twice, the engine of that commit (its src taken
// from git) first, then the code as it is, one child after the other in the same run.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { constants, monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { Session } from "node:inspector/promises";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { writeHeapSnapshot } from "node:v8";
import { buildOrReuseBinaries } from "../test/cluster/binaries.ts";
import { startNatsServer } from "../test/cluster/nats.ts";
import { latencies } from "./cluster/scale.ts";
import { extractBaseline } from "./support/baselineSource.ts";
import { loadImplementation, startNatsEngine } from "./support/natsEngine.ts";
import { processMemory } from "./support/processMemory.ts";
import { collectGarbage, writeResults } from "./support/results.ts";
import { namespaceOf } from "./watch/cluster.ts";
import { startStandIn } from "./watch/standIn.ts";

interface RunSettings {
  /** Whose engine: `current` (this checkout) or `baseline` (a commit's src, extracted). */
  implementation: { name: string; root: string };
  pods: number;
  observations: number;
  namespaces: number;
  churnEvents: number;
  decisivePerSecond: number;
  podsPerSecond: number;
  /** Observations the second replica hands over in the adoption phase. */
  adoptions: number;
  natsUrl: string;
  watchPort: number;
}

/** The service image's flags (Dockerfile NODE_OPTIONS). */
const serviceNodeFlags = ["--max-semi-space-size=16"];
const resultMarker = "SCALE_CURVE_RESULT ";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 0) => Math.round(value * 10 ** digits) / 10 ** digits;
const mib = (bytes: number) => round(bytes / 2 ** 20, 1);
/** A kernel figure such as `123456 kB`, in MiB. */
const kernelMib = (memory: Record<string, unknown>, field: string) => {
  const text = (memory["kernel"] as Record<string, string>)[field];
  return text === undefined ? null : round(Number.parseInt(text, 10) / 1024, 1);
};

async function until(condition: () => boolean, what: string, timeoutSeconds: number): Promise<void> {
  const deadline = performance.now() + timeoutSeconds * 1000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const delayResolutionMs = 10;

/** SCALE_CURVE_PROFILE=DIR: each phase's CPU profile, DIR/<implementation>-<pods>x<observations>-<phase>.cpuprofile. */
const profileDirectory = process.env["SCALE_CURVE_PROFILE"];
let profiler: Session | undefined;

/** With SCALE_CURVE_PROFILE, the loop's stalls past 50 ms ([start, end] µs, CLOCK_MONOTONIC, the profile's clock), to find them in the profile. */
let stalls: [number, number][] = [];
let stallTimer: NodeJS.Timeout | undefined;
function watchStalls(): void {
  let last = process.hrtime.bigint();
  stallTimer = setInterval(() => {
    const now = process.hrtime.bigint();
    if (now - last > 50_000_000n) stalls.push([Number(last / 1000n), Number(now / 1000n)]);
    last = now;
  }, 2);
}

async function startProfile(): Promise<void> {
  if (profileDirectory === undefined) return;
  stalls = [];
  if (stallTimer === undefined) watchStalls();
  if (profiler === undefined) {
    profiler = new Session();
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.setSamplingInterval", { interval: 1000 });
  }
  await profiler.post("Profiler.start");
}

async function stopProfile(name: string): Promise<void> {
  if (profiler === undefined || profileDirectory === undefined) return;
  const { profile } = await profiler.post("Profiler.stop");
  mkdirSync(profileDirectory, { recursive: true });
  writeFileSync(join(profileDirectory, `${name}.cpuprofile`), JSON.stringify(profile));
  writeFileSync(join(profileDirectory, `${name}.stalls.json`), JSON.stringify(stalls));
}

/** CPU, wall time, GC and the event loop's longest delay over one phase (its CPU profile named `profileName`, with SCALE_CURVE_PROFILE). */
async function phaseMeter(profileName: string) {
  await startProfile();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const delay = monitorEventLoopDelay({ resolution: delayResolutionMs });
  delay.enable();
  let gcMs = 0;
  let majorGcMs = 0;
  let gcPauseMaxMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcPauseMaxMs = Math.max(gcPauseMaxMs, entry.duration);
      if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcMs += entry.duration;
    }
  });
  gc.observe({ entryTypes: ["gc"] });
  return async (watchEvents: number) => {
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - start) / 1000;
    // A phase often ends with its longest block (a list applied in one go, then synced): the
    // histogram records a delay when its own timer runs after the block, and the poll that saw the
    // phase end may run first. Closed at once, it missed that block in some runs (a baseline's
    // 200,000-pod list measured 164 ms in one run, 5,868 ms in another); so it stays open a few
    // of its ticks longer, as does the GC observer, whose entries are delivered late too.
    await sleep(5 * delayResolutionMs);
    delay.disable();
    gc.disconnect();
    await stopProfile(profileName);
    const cpuSeconds = (used.user + used.system) / 1e6;
    return {
      seconds: round(seconds, 1),
      watchEvents,
      watchEventsPerSecond: round(watchEvents / seconds),
      cpuSeconds: round(cpuSeconds, 2),
      cpuSecondsPer1000WatchEvents: round((cpuSeconds / watchEvents) * 1000, 3),
      gcSeconds: round(gcMs / 1000, 2),
      majorGcSeconds: round(majorGcMs / 1000, 2),
      // The longest pause of the loop that was a collection: what of eventLoopDelayMaxMs no slicing can shorten.
      gcPauseMaxMs: round(gcPauseMaxMs, 1),
      eventLoopDelayMaxMs: round(delay.max / 1e6, 1),
    };
  };
}

/** One size, in this (child) process; its phases logged on stderr as they start. */
async function measure(settings: RunSettings) {
  const started = performance.now();
  const progress = (what: string) => console.error(`  ${round((performance.now() - started) / 1000, 1)} s: ${what}`);
  const events = new Map<string, number>();
  const watchEvents = () => [...events.values()].reduce((a, b) => a + b, 0);
  const eventToVerdictMs: number[] = [];
  const profilePrefix = `${settings.implementation.name}-${settings.pods}x${settings.observations}`;
  collectGarbage();
  const before = processMemory();
  const heapBefore = process.memoryUsage().heapUsed;
  const implementation = await loadImplementation(settings.implementation.name, settings.implementation.root);
  const engine = await startNatsEngine(implementation, {
    // Every commit a baseline is taken from connects as the service does.
    noAsyncTraces: true,
    natsUrl: settings.natsUrl,
    watchPort: settings.watchPort,
    prefix: `scale${settings.pods}x${settings.observations}`,
    // As serve: what another replica hands over or lets expire is taken over (the adoption phase).
    adopt: true,
    onWatchEvent: (kind) => void events.set(kind, (events.get(kind) ?? 0) + 1),
    onEventToVerdict: (ms) => void eventToVerdictMs.push(ms),
  });

  // The informers start with the first observation. The list's longest delay and GC are what a
  // verdict decided meanwhile would wait for.
  progress("observing");
  const listing = await phaseMeter(`${profilePrefix}-list`);
  const listStart = performance.now();
  const size = { deployments: settings.observations, podsPerDeployment: settings.pods / settings.observations, namespaces: settings.namespaces };
  await engine.observeDeployments(settings.observations, (d) => namespaceOf(size, d));
  const observedAfterSeconds = round((performance.now() - listStart) / 1000, 1);
  progress("observed, listing");
  await until(() => engine.hub.hasSynced(), "the informers' lists", 600);
  progress("listed");
  const { seconds, cpuSeconds, gcSeconds, majorGcSeconds, gcPauseMaxMs, eventLoopDelayMaxMs } = await listing(0);
  const initialList = { seconds, observedAfterSeconds, cpuSeconds, gcSeconds, majorGcSeconds, gcPauseMaxMs, eventLoopDelayMaxMs };
  const afterList = processMemory();
  await sleep(1_000);
  collectGarbage();
  const cached = processMemory();
  const heapCached = process.memoryUsage().heapUsed;
  // SCALE_CURVE_HEAP_SNAPSHOT=1 (with SCALE_CURVE_PROFILE=DIR): what the heap holds with everything cached and observed.
  // Writing it takes seconds and memory of its own: a run that takes one measures its later phases and peak wrongly.
  if (profileDirectory !== undefined && process.env["SCALE_CURVE_HEAP_SNAPSHOT"] === "1") writeHeapSnapshot(join(profileDirectory, `${profilePrefix}-cached.heapsnapshot`));

  const stand = (path: string) => fetch(`http://127.0.0.1:${settings.watchPort}/scale?${path}`).then((response) => response.json() as Promise<{ seconds: number } & Record<string, number>>);
  const churnFrom = watchEvents();
  progress("churn");
  const churnMeter = await phaseMeter(`${profilePrefix}-churn`);
  const churnStart = performance.now();
  await stand("phase=churn");
  await until(() => watchEvents() - churnFrom >= settings.churnEvents, "the churn's pod events", 600);
  const receivedSeconds = (performance.now() - churnStart) / 1000;
  // The CPU includes what the updates left to do: record writes of pending messages go out within 2 s.
  await sleep(2_500);
  const churn = { ...(await churnMeter(watchEvents() - churnFrom)), receivedSeconds: round(receivedSeconds, 2), watchEventsPerSecond: round(settings.churnEvents / receivedSeconds) };
  const decisiveFrom = watchEvents();
  progress("decisive events");
  const decisiveMeter = await phaseMeter(`${profilePrefix}-decisive`);
  const written = await stand(`phase=decisive&decisivePerSecond=${settings.decisivePerSecond}&podsPerSecond=${settings.podsPerSecond}`);
  await until(() => eventToVerdictMs.length >= settings.observations, "every verdict", 600);
  const decisive = { ...(await decisiveMeter(watchEvents() - decisiveFrom)), standIn: { ...written, seconds: round(written.seconds, 1) }, eventToVerdict: latencies(eventToVerdictMs) };
  progress("decided");
  const atEnd = processMemory();
  // What the decided observations leave behind, once what is garbage is collected.
  collectGarbage();
  const decided = processMemory();

  progress("relist");
  const relistMeter = await phaseMeter(`${profilePrefix}-relist`);
  const gone = (await stand("phase=gone")) as unknown as { relistVersion: string; lastPod: { namespace: string; name: string } };
  const pods = engine.hub.informer("core/Pod");
  await until(() => pods.get(gone.lastPod.namespace, gone.lastPod.name)?.metadata.resourceVersion === gone.relistVersion, "the relist", 600);
  const relisted = await relistMeter(0);
  const relist = { seconds: relisted.seconds, cpuSeconds: relisted.cpuSeconds, gcSeconds: relisted.gcSeconds, gcPauseMaxMs: relisted.gcPauseMaxMs, eventLoopDelayMaxMs: relisted.eventLoopDelayMaxMs };
  progress("relisted");
  const afterRelist = processMemory();

  // A second replica (its own connection, leases and engine, on this one's informers) observes
  // Deployments that are not there (pending, absent, for the hour), then hands them over as on
  // SIGTERM; this engine's Adopter takes every one of them over at once.
  /** Another replica in this process: its own connection, leases and engine, on the measured engine's informers. */
  const otherReplica = (replicaId: string) =>
    startNatsEngine(implementation, {
      noAsyncTraces: true,
      natsUrl: settings.natsUrl,
      watchPort: settings.watchPort,
      prefix: `scale${settings.pods}x${settings.observations}`,
      replicaId,
      hub: engine.hub,
    });
  const other = await otherReplica("bench-b");
  await other.observeDeployments(settings.adoptions, (d) => namespaceOf(size, d), (d) => `waiting-${d}`);
  await until(() => other.engine.activeCount >= settings.adoptions, "the other replica's observations", 600);
  await sleep(1_000);
  progress("adoption");
  const adoptionMeter = await phaseMeter(`${profilePrefix}-adoption`);
  const adoptionStarted = performance.now();
  const handingOver = other.handOver();
  await until(() => engine.engine.activeCount >= settings.adoptions, "every adoption", 600);
  const adoptedSeconds = round((performance.now() - adoptionStarted) / 1000, 1);
  await handingOver;
  const adopted = await adoptionMeter(0);
  const adoption = { observations: settings.adoptions, seconds: adopted.seconds, adoptedSeconds, cpuSeconds: adopted.cpuSeconds, gcSeconds: adopted.gcSeconds, gcPauseMaxMs: adopted.gcPauseMaxMs, eventLoopDelayMaxMs: adopted.eventLoopDelayMaxMs };
  progress("adopted");
  const atAdoption = processMemory();
  await other.stop();

  // In the adoption above the handing-over replica's own 5,000 lease releases run on this loop
  // too (in a cluster they run in the other replica's process). Here a third replica observes as
  // many, then stops without a word, as on a crash: its heartbeat lapses and this engine takes
  // every one over at once, alone on the loop.
  const third = await otherReplica("bench-c");
  await third.observeDeployments(settings.adoptions, (d) => namespaceOf(size, d), (d) => `lapsed-${d}`);
  await until(() => third.engine.activeCount >= settings.adoptions, "the third replica's observations", 600);
  await sleep(1_000);
  progress("takeover after a crash");
  const drivenBefore = engine.engine.activeCount;
  const stoppedAt = performance.now();
  await third.stop();
  // What the stopped replica held is garbage here, and would not be in this process in a cluster:
  // collected before the phase is measured (its heartbeat takes seconds to lapse).
  collectGarbage();
  const takeoverMeter = await phaseMeter(`${profilePrefix}-takeover`);
  await until(() => engine.engine.activeCount >= drivenBefore + settings.adoptions, "every takeover", 600);
  const tookOverSeconds = round((performance.now() - stoppedAt) / 1000, 1);
  const tookOver = await takeoverMeter(0);
  const takeover = { observations: settings.adoptions, seconds: tookOver.seconds, tookOverSeconds, cpuSeconds: tookOver.cpuSeconds, gcSeconds: tookOver.gcSeconds, gcPauseMaxMs: tookOver.gcPauseMaxMs, eventLoopDelayMaxMs: tookOver.eventLoopDelayMaxMs };
  progress("taken over");
  await engine.stop();

  const usage = (memory: Record<string, unknown>) => memory["memoryUsage"] as NodeJS.MemoryUsage;
  const spaces = cached["spaces"] as Record<string, { size: number; used: number; physical: number }>;
  return {
    implementation: settings.implementation.name,
    pods: settings.pods,
    observations: settings.observations,
    podsPerDeployment: settings.pods / settings.observations,
    watchEventsByKind: Object.fromEntries(events),
    initialList: { ...initialList, podsPerSecond: round(settings.pods / initialList.seconds) },
    memory: {
      heapUsedMiB: mib(heapCached),
      heapBytesPerCachedPod: round((heapCached - heapBefore) / settings.pods),
      rssBeforeMiB: mib(usage(before).rss),
      rssAfterListMiB: mib(usage(afterList).rss),
      rssCachedMiB: mib(usage(cached).rss),
      rssAtEndMiB: mib(usage(atEnd).rss),
      heapUsedDecidedMiB: mib(usage(decided).heapUsed),
      rssDecidedMiB: mib(usage(decided).rss),
      peakRssMiB: kernelMib(atEnd, "VmHWM"),
      // The peak again once the relist (both caches' objects alive at once) and the adoption are through.
      peakRssAfterRelistMiB: kernelMib(afterRelist, "VmHWM"),
      peakRssAfterAdoptionMiB: kernelMib(atAdoption, "VmHWM"),
      externalMiB: mib(usage(cached).external),
      arrayBuffersMiB: mib(usage(cached).arrayBuffers),
      spacesMiB: Object.fromEntries(Object.entries(spaces).map(([name, s]) => [name, { size: mib(s.size), used: mib(s.used), resident: mib(s.physical) }])),
      kernelCached: {
        anonymousMiB: kernelMib(cached, "Anonymous"),
        rssAnonMiB: kernelMib(cached, "RssAnon"),
        rssFileMiB: kernelMib(cached, "RssFile"),
      },
    },
    churn,
    decisive,
    relist,
    adoption,
    takeover,
  };
}

/** One size in a child process of its own, with its own nats-server and stand-in. */
async function runChild(settings: Omit<RunSettings, "natsUrl" | "watchPort">, natsServer: string) {
  const natsDir = mkdtempSync(join(tmpdir(), "stagewatch-scale-curve-nats-"));
  const nats = await startNatsServer(natsServer, natsDir);
  const standInStart = performance.now();
  const server = await startStandIn({
    deployments: settings.observations,
    podsPerDeployment: settings.pods / settings.observations,
    namespaces: settings.namespaces,
    passes: 0,
    scale: { churnEvents: settings.churnEvents },
  });
  const standInSeconds = round((performance.now() - standInStart) / 1000, 1);
  try {
    const loadAverageBefore = loadavg().map((l) => round(l, 2));
    const child = spawn(process.execPath, [...process.execArgv, ...serviceNodeFlags, fileURLToPath(import.meta.url)], {
      env: { ...process.env, SCALE_CURVE_RUN: JSON.stringify({ ...settings, natsUrl: nats.url, watchPort: server.port }) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let result: unknown;
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line.startsWith(resultMarker)) result = JSON.parse(line.slice(resultMarker.length));
      else console.log(line);
    }
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", resolve)));
    if (code !== 0 || result === undefined) throw new Error(`the run at ${settings.pods} pods x ${settings.observations} exited ${code}`);
    return { ...(result as object), standInStartSeconds: standInSeconds, loadAverageBefore, loadAverageAfter: loadavg().map((l) => round(l, 2)) };
  } finally {
    server.stop();
    await nats.stop();
    rmSync(natsDir, { recursive: true, force: true });
  }
}

const childSettings = process.env["SCALE_CURVE_RUN"];
if (childSettings !== undefined) {
  const measured = await measure(JSON.parse(childSettings) as RunSettings);
  console.log(`${resultMarker}${JSON.stringify(measured)}`);
  process.exit(0);
}

const sizes = (process.env["SCALE_CURVE_SIZES"] ?? "20000x1000,100000x1000,200000x1000,200000x10000").split(",").map((size) => {
  const [pods, observations] = size.split("x").map(Number) as [number, number];
  if (!(pods > 0 && observations > 0 && pods % observations === 0)) throw new Error(`${size}: pods x observations, pods a multiple of observations`);
  return { pods, observations };
});
// As bench cluster's default: a namespace of 200,000 pods is no cluster's layout, and ObjectCache.list
// overflows the stack past about 125,000 objects of a kind in one namespace
// (docs/design/performance.md, "One replica by size").
const namespaces = Number(process.env["SCALE_CURVE_NAMESPACES"] ?? 10);
const churnEvents = Number(process.env["SCALE_CURVE_CHURN"] ?? 40_000);
const decisivePerSecond = Number(process.env["SCALE_CURVE_DECISIVE_PER_SECOND"] ?? 200);
const podsPerSecond = Number(process.env["SCALE_CURVE_PODS_PER_SECOND"] ?? 1_000);
const adoptions = Number(process.env["SCALE_CURVE_ADOPTIONS"] ?? 5_000);
/** Another name for a run beside the default one (an allocator setting, say): bench/results/<name>.json. */
const resultsName = process.env["SCALE_CURVE_RESULTS"] ?? "scale-curve";
const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRef = process.env["SCALE_CURVE_BASELINE"];
const baselineCommit = baselineRef && execFileSync("git", ["-C", repository, "rev-parse", baselineRef], { encoding: "utf8" }).trim();
const implementations = [
  ...(baselineCommit ? [{ name: "baseline", root: extractBaseline(repository, baselineCommit, "scale-curve") }] : []),
  { name: "current", root: repository },
];
const { natsServer } = buildOrReuseBinaries();
const runs: unknown[] = [];
const write = () =>
  writeResults(resultsName, {
    ...(baselineCommit && { baselineCommit }),
    nodeFlags: serviceNodeFlags,
    malloc: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("MALLOC_"))),
    namespaces,
    churnEvents,
    decisivePerSecond,
    podsPerSecond,
    adoptions,
    runs,
  });
try {
  for (const size of sizes) {
    for (const implementation of implementations) {
      const measured = await runChild({ implementation, ...size, namespaces, churnEvents, decisivePerSecond, podsPerSecond, adoptions }, natsServer);
      console.log(`${implementation.name}, ${size.pods} pods x ${size.observations} observations: ${JSON.stringify(measured)}`);
      runs.push(measured);
      // After each run: a run stopped part way keeps what it measured.
      write();
    }
  }
  console.log(`-> ${write()}`);
} finally {
  for (const { name, root } of implementations) if (name === "baseline") rmSync(root, { recursive: true, force: true });
}
process.exit(0);

// The highest sustained watch event rate through the real watch path, against a bare JSON.parse
// of the same events in the same run as the ceiling. A stand-in API server in another process
// (bench/watch/server.ts, plain HTTP on loopback) streams chunked watch bodies of realistic pod
// updates as fast as the socket drains; this process, pinned to one core when taskset exists,
// reads them through the project's own code, so the rate it reaches is the rate it keeps up with:
// - transport: kubeHttpTransport's watch (undici fetch, line splitting, JSON.parse), lines counted;
// - informer: the Pod informer of an InformerHub (reflector with its watchdog, strip, cache,
//   events) with the service's Prometheus stream metrics;
// - service: the same hub feeding an ObservationEngine with one observation per Deployment
//   (Deployment, ReplicaSet and Pod informers): every pod update is routed through the owner
//   index to its Deployment's observation, whose rule and reducer run on it (the rollout stays
//   pending: one pod not ready), as in `stagewatch serve` minus NATS (records and events go to
//   stand-ins that keep nothing). Every update changes the pod (its container's restartCount);
// - serviceResent: the same with every pod re-sent as it is (a relist after a gap, a status write
//   of fields the strip drops), which the engine recognizes without judging the workload again.
// Each stage runs for the code as it is and for the code before this benchmark's fixes
// (baselineCommit, extracted from git), interleaved, `rounds` times each; the median counts, and
// the best round is kept too (the machine is shared: the best is the rate when the core was ours).
// CPU is the process's user + system time over the measured events (JIT and GC threads included).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Registry } from "prom-client";
import { asyncScheduler } from "rxjs";
import { discardingRecords } from "./support/discardingRecords.ts";
import { extractBaseline } from "./support/baselineSource.ts";
import { pinToCoreZero } from "./support/pinning.ts";
import { collectGarbage, writeResults } from "./support/results.ts";
import { standInKubeConfig, startStandIn } from "./watch/standIn.ts";
import { podWatchLines, watchCluster, type WatchClusterSize } from "./watch/cluster.ts";

// The code before the watch path's first fixes; WATCH_BASELINE names another commit to compare with.
const baselineCommit = process.env["WATCH_BASELINE"] ?? "0ebf907a17fdabc151f6551a8cea8764fbc89901";
const size: WatchClusterSize = { deployments: 1_000, podsPerDeployment: 20 };
const passes = 2;
const rounds = 3;
const goalEventsPerSecond = 30_000;

type Streams = typeof import("../src/streams/index.ts");
type Observations = typeof import("../src/observations/index.ts");
type ObservationsTesting = typeof import("../src/observations/testing/index.ts");
type Verdicts = typeof import("../src/verdicts/index.ts");
type ServiceMetrics = typeof import("../src/service/metrics.ts");
interface Implementation {
  name: string;
  streams: Streams;
  observations: Observations;
  testing: ObservationsTesting;
  verdicts: Verdicts;
  serviceMetrics: ServiceMetrics;
}

async function load(name: string, root: string): Promise<Implementation> {
  const [streams, observations, testing, verdicts, serviceMetrics] = await Promise.all([
    import(join(root, "src/streams/index.ts")) as Promise<Streams>,
    import(join(root, "src/observations/index.ts")) as Promise<Observations>,
    import(join(root, "src/observations/testing/index.ts")) as Promise<ObservationsTesting>,
    import(join(root, "src/verdicts/index.ts")) as Promise<Verdicts>,
    import(join(root, "src/service/metrics.ts")) as Promise<ServiceMetrics>,
  ]);
  return { name, streams, observations, testing, verdicts, serviceMetrics };
}

const pinned = pinToCoreZero();

// ---- measuring ------------------------------------------------------------------------------------

interface Rate {
  eventsPerSecond: number;
  cpuSecondsPer1000Events: number;
}

/** Counts events from the first to the `expected`th: rate and CPU over those in between. */
function meter(expected: number, done: () => void) {
  let count = 0;
  let startedAt = 0;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  let result: Rate | undefined;
  return {
    tick(): void {
      count += 1;
      if (count === 1) {
        startedAt = performance.now();
        cpuAtStart = process.cpuUsage();
      } else if (count === expected) {
        const seconds = (performance.now() - startedAt) / 1000;
        const cpu = process.cpuUsage(cpuAtStart);
        result = {
          eventsPerSecond: Math.round((expected - 1) / seconds),
          cpuSecondsPer1000Events: round3(((cpu.user + cpu.system) / 1e6 / (expected - 1)) * 1000),
        };
        done();
      }
    },
    get result(): Rate {
      if (!result) throw new Error(`only ${count} of ${expected} events arrived`);
      return result;
    },
  };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const expectedEvents = size.deployments * size.podsPerDeployment * passes;

/** Starts the pod watch's stream: every update changing the pod (the default), or pods re-sent as they are. */
async function go(port: number, stream: "changing" | "resent" = "changing"): Promise<void> {
  await (await fetch(`http://127.0.0.1:${port}/go?stream=${stream}`)).text();
}

function streamMetrics(serviceMetrics: ServiceMetrics, onEvent: (kind: string) => void) {
  const metrics = serviceMetrics.createMetrics(new Registry());
  return {
    watchEvent: (kind: string, type: string) => {
      metrics.watchEventsTotal.inc({ kind, type });
      onEvent(kind);
    },
    watchRestart: (kind: string, cause: string) => metrics.watchRestartsTotal.inc({ kind, cause }),
    objects: (kind: string, count: number) => metrics.informerObjects.set({ kind }, count),
  };
}

async function transportStage(impl: Implementation, port: number): Promise<Rate> {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const counted = meter(expectedEvents, finish);
  const subscription = impl.streams
    .kubeHttpTransport(standInKubeConfig(port))
    .watch({ path: "/api/v1/pods", query: { watch: true, resourceVersion: "1" } })
    .subscribe({ next: () => counted.tick(), error: (error: unknown) => console.error(error) });
  await go(port);
  await finished;
  subscription.unsubscribe();
  return counted.result;
}

async function informerStage(impl: Implementation, port: number): Promise<Rate> {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const counted = meter(expectedEvents, finish);
  const hub = new impl.streams.InformerHub({
    transport: impl.streams.kubeHttpTransport(standInKubeConfig(port)),
    metrics: streamMetrics(impl.serviceMetrics, () => counted.tick()),
  });
  const informer = hub.informer("core/Pod");
  let received = 0;
  informer.events$.subscribe(() => void received++);
  await go(port);
  await finished;
  hub.stop();
  if (received < expectedEvents) throw new Error(`the informer delivered ${received} events`);
  return counted.result;
}

async function serviceStage(impl: Implementation, port: number, stream: "changing" | "resent" = "changing"): Promise<Rate & { published: number }> {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const counted = meter(expectedEvents, finish);
  const hub = new impl.streams.InformerHub({
    transport: impl.streams.kubeHttpTransport(standInKubeConfig(port)),
    metrics: streamMetrics(impl.serviceMetrics, (kind) => kind === "core/Pod" && counted.tick()),
  });
  const records = discardingRecords();
  let published = 0;
  const { observations, testing, verdicts } = impl;
  const leases = new observations.LeaseKeeper({
    store: new testing.InMemoryLeaseStore(),
    scheduler: asyncScheduler,
    replicaId: "bench",
    timing: observations.defaultLeaseTiming,
    metrics: observations.noopLeaseMetrics,
    // A literal: the baseline and the current code export their silent loggers under other names.
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const engine = new observations.ObservationEngine({
    kinds: hub,
    records,
    leases,
    events: { publish: async () => void published++, hasVerdict: async () => false, discard: () => {} },
    // Every Deployment observed at once, by one caller: admission's limits would refuse most (the baseline ignores the option).
    admissionLimits: { inFlight: size.deployments, inFlightPerCaller: size.deployments },
  });
  for (let d = 0; d < size.deployments; d++) {
    const request = verdicts.parseWith(verdicts.ObservationRequest, {
      key: `bench/app-${d}`,
      deployment: `app-${d}`,
      require: "healthy",
      timeoutSeconds: 3600,
      defaultNamespace: "payments",
      resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: `app-${d}` }],
    });
    if (!request.ok) throw new Error(JSON.stringify(request.issues));
    await engine.observe(request.value);
  }
  while (!hub.hasSynced()) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const publishedBefore = published;
  await go(port, stream);
  await finished;
  const active = engine.activeCount;
  engine.stop();
  hub.stop();
  leases.stopHeartbeat();
  if (active !== size.deployments) throw new Error(`${active} observations in progress, expected ${size.deployments}`);
  return { ...counted.result, published: published - publishedBefore };
}

/**
 * The ceiling: JSON.parse alone over the same lines, held in memory. They are built for the
 * measurement and dropped after it: held for the whole run, their 136 MB of old-space strings
 * were in every other stage's heap too, which the service never has.
 */
function parseCeiling(): Rate & { lineBytes: number } {
  const lines = podWatchLines(watchCluster(size), "2", 1);
  // Building them left the heap full of garbage: without this the parse paid for collecting it,
  // and the ceiling fell to half.
  collectGarbage();
  let kept: unknown;
  const startedAt = performance.now();
  const cpuAtStart = process.cpuUsage();
  for (let pass = 0; pass < passes; pass++) {
    for (const line of lines) kept = JSON.parse(line);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const cpu = process.cpuUsage(cpuAtStart);
  if (kept === undefined) throw new Error("nothing parsed");
  const events = lines.length * passes;
  return {
    eventsPerSecond: Math.round(events / seconds),
    cpuSecondsPer1000Events: round3(((cpu.user + cpu.system) / 1e6 / events) * 1000),
    lineBytes: Buffer.byteLength(lines[0]!),
  };
}

function median<T extends Rate>(samples: readonly T[]): T {
  return [...samples].sort((a, b) => a.eventsPerSecond - b.eventsPerSecond)[Math.floor(samples.length / 2)]!;
}

// ---- the run ------------------------------------------------------------------------------------

const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRoot = extractBaseline(repository, baselineCommit, "watch");
const server = await startStandIn({ ...size, passes }, pinned ? 1 : undefined);
try {
  const implementations = [await load("baseline", baselineRoot), await load("current", repository)];
  const stages = {
    transport: transportStage,
    informer: informerStage,
    service: serviceStage,
    serviceResent: (impl: Implementation, port: number) => serviceStage(impl, port, "resent"),
  } as const;
  const samples: Record<string, Record<string, Rate[]>> = { parse: { ceiling: [] } };
  let watchLineBytes = 0;
  for (const impl of implementations) samples[impl.name] = { transport: [], informer: [], service: [], serviceResent: [] };
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const { lineBytes, ...ceiling } = parseCeiling();
    watchLineBytes = lineBytes;
    samples.parse!.ceiling!.push(ceiling);
    for (const impl of implementations) {
      for (const [stage, run] of Object.entries(stages)) {
        collectGarbage();
        const rate = await run(impl, server.port);
        samples[impl.name]![stage]!.push(rate);
        console.log(`round ${round + 1} ${impl.name} ${stage}: ${rate.eventsPerSecond} events/s, ${rate.cpuSecondsPer1000Events} CPU s per 1,000`);
      }
    }
  }
  const ceiling = median(samples.parse!.ceiling!);
  const summary = (name: string) =>
    Object.fromEntries(
      Object.keys(stages).map((stage) => {
        const rate = median(samples[name]![stage]!);
        const best = Math.max(...samples[name]![stage]!.map((sample) => sample.eventsPerSecond));
        return [stage, { ...rate, bestEventsPerSecond: best, ofCeiling: round3(rate.eventsPerSecond / ceiling.eventsPerSecond) }];
      }),
    );
  const results = {
    goalEventsPerSecond,
    pinnedToOneCore: pinned,
    sizes: { ...size, pods: size.deployments * size.podsPerDeployment, passes, eventsPerRun: expectedEvents, rounds },
    watchLineBytes,
    transport: "plain HTTP/1.1 on loopback, chunked, 64 KiB writes (the API server speaks TLS: not measured here)",
    baselineCommit,
    ceiling: { jsonParse: ceiling },
    current: summary("current"),
    baseline: summary("baseline"),
    samples,
  };
  const file = writeResults("watch-throughput", results);
  console.log(JSON.stringify({ ceiling, current: results.current, baseline: results.baseline }, null, 2), `-> ${file}`);
} finally {
  server.stop();
  rmSync(baselineRoot, { recursive: true, force: true });
}
process.exit(0);

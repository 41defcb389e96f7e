// The live-cluster benchmark: `stagewatch serve` (compiled, as a process of its own, as a
// ServiceAccount with read-only access) against a real kube-apiserver with kwok, N observations
// of Deployments with M pods in all, and Helm 4's two wait modes side by side on a small sample
// (helmSample.ts). What it measures, and how:
// - latency after the decisive event: the benchmark's own watch on Deployments records when each
//   first shows its rollout complete (observedGeneration current, every replica updated, ready
//   and available); a core NATS subscription on the events subjects records when its verdict
//   arrived. Both in this process, on one clock.
// - the service's own stagewatch_event_to_verdict_seconds over the same observations.
// - heap per cached pod: the service's heap after two full collections (gc-on-signal.ts) once
//   every pod is cached, less the same before the first one was created, over the pods cached.
// - CPU seconds per 1,000 watch events: process CPU over watch events counted by the service,
//   both from its /metrics, over the whole phase (it includes deciding and publishing).
// - API requests per observation: apiRequests.ts, over the observation phase.
// - watches the API server ended early: the service's (watches-on-signal.ts) beside a reader that
//   is not the service with its pod watch's scope (controlWatcher.ts), and the server's count of
//   every client's (apiserver_terminated_watchers_total).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { AppsV1Api, BatchV1Api, CoreV1Api, KubeConfig, Watch, type V1Deployment } from "@kubernetes/client-node";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { startServe, type RunningService } from "../../test/cluster/stagewatch.ts";
import { difference, setUpAccounting, sum, type Accounting, type Counts } from "./apiRequests.ts";
import { runHelmSample, type HelmSampleResult } from "./helmSample.ts";
import { loopDelayOf, toMonotonicUs } from "./clocks.ts";
import { gcInWindow, readGcPauses, summarizeGcPauses } from "./gcPauses.ts";
import { histogramQuantiles, scrape, total, type Sample } from "./metrics.ts";
import { startStampThread, type StampThread } from "./stampThread.ts";
import { startControlWatcher, type ControlProtocol } from "./controlWatcher.ts";
import { blindStretches, deploymentReceipts, readWatchRecording, receiptInWindow, summarizeWatches, type WatchSummary } from "./watchTimeline.ts";

export interface ClusterBenchOptions {
  kubeconfigPath: string;
  natsUrl: string;
  /** Compiled stagewatch CLI (dist/cli.js). */
  cli: string;
  /** Scratch directory: kubeconfigs, the service's log. */
  dir: string;
  observations: number;
  pods: number;
  /** Namespaces the Deployments are spread over. */
  namespaces: number;
  /** Deployments created (and observed) at once. */
  concurrency: number;
  /** Helm releases per scenario and wait mode; 0 skips Helm. */
  helmSample: number;
  helmTimeoutSeconds: number;
  /** Each observation's timeout; the benchmark waits for verdicts that long (plus 30 s), then reports what is missing. */
  observationBudgetSeconds: number;
  helm?: string;
  /** Profiles the service over the measured phase into this directory (profile-on-signal.ts). */
  profileDir?: string;
  /** With profileDir: a heap snapshot too, at the end of the phase. */
  heapSnapshot?: boolean;
  log: (line: string) => void;
}

export interface Latencies {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface ClusterBenchResult {
  sizes: { observations: number; pods: number; podsPerDeployment: number; namespaces: number };
  verdicts: { received: number; succeeded: number; missing: number };
  /** From the decisive event to the verdict's first copy at a core subscriber (the notice, or the stream's copy if it came first). */
  afterDecisiveEvent: Latencies;
  /** The same to the stream's copy: what the benchmark measured before it read the notice (runs before 2026-12-03 11:30). */
  streamCopyAfterDecisiveEvent: Latencies;
  /**
   * The same time cut at the verdict's decidedAt (the service's wall clock, the machine's own,
   * to the millisecond): from the benchmark seeing the decisive event to the service deciding
   * (the API server's delivery to the service's watch, then the service's queue and judgement),
   * and from deciding to the subscriber (the record's compare-and-swap, signing, NATS, the
   * subscriber's delivery).
   */
  afterDecisiveEventSplit: { toDecision: Latencies; decisionToSubscriber: Latencies };
  /** The slowest verdicts, with their windows on the monotonic clock a CPU profile is stamped in (profileWindows.ts). */
  slowestVerdicts: SlowVerdict[];
  serviceEventToVerdict: { count: number; atMostSeconds: Record<string, number | null> };
  /**
   * The benchmark's main event loop's delay over the phase (monitorEventLoopDelay), and the stamp
   * thread's (stampThread.ts), which stamps both ends of every latency since 2026-12-03 11:50: how
   * late a stamp may have been taken.
   */
  benchEventLoopDelay: { p99Ms: number; maxMs: number };
  stampThreadEventLoopDelay: { p99Ms: number; maxMs: number };
  cluster: { podsCachedByService: number; secondsToCreateAndRollOut: number; podsReadyPerSecond: number };
  service: {
    heapBytesBefore: number;
    heapBytesAfter: number;
    heapBytesPerCachedPod: number;
    rssBytes: number;
    cpuSeconds: number;
    watchEvents: number;
    cpuSecondsPer1000WatchEvents: number;
    /** What the cluster delivered over the phase: a floor of what the service keeps up with. */
    watchEventsPerSecondDelivered: number;
    /** Events per second of the service's CPU, everything it did included: a one-core extrapolation. */
    watchEventsPerCpuSecond: number;
    /**
     * Garbage collection over the phase (prom-client's gc histogram): seconds in all, and in
     * major (mark-compact) collections, the pauses long enough to make a tail. The event loop's
     * longest delay since the service started comes beside it.
     */
    gcSeconds: number;
    majorGcSeconds: number;
    majorGcs: number;
    eventLoopLagMaxSeconds: number;
    /** Every pause of the phase, as V8 reported each (gcPauses.ts): by kind, and the longest. */
    gcPauses?: ReturnType<typeof summarizeGcPauses>;
    /** The service's watches over the phase, by resource (watchTimeline.ts): opened, ended, blind while re-opened. */
    watches?: Record<string, WatchSummary>;
    /**
     * The service's system calls over the phase (/proc/<pid>/io; absent where there is none):
     * every socket write (the NATS client's flushes, the kube client's requests) and read is one,
     * so these say how many flushes the CPU figure pays for.
     */
    writeSyscalls?: number;
    readSyscalls?: number;
    writeSyscallsPer1000WatchEvents?: number;
  };
  apiRequests: {
    stagewatch: Counts;
    stagewatchPerObservation: number;
    watchRestartsByCause: Record<string, number>;
    /**
     * Watchers the API server closed over the phase because they did not take their events in
     * time (`apiserver_terminated_watchers_total`, by resource; every client's, not only the service's).
     */
    terminatedWatchersByResource: Record<string, number>;
  };
  /**
   * The control readers' watches of every namespace's pods over the phase (controlWatcher.ts), over
   * HTTP/2 as the service's and over HTTP/1.1: how often the server ended them before their
   * timeout, beside the service's own (`service.watches.pods.endedEarly`).
   */
  controlWatchers?: Partial<Record<ControlProtocol, WatchSummary>>;
  helm?: HelmSampleResult;
}

export interface SlowVerdict {
  key: string;
  ms: number;
  toDecisionMs: number;
  decisionToSubscriberMs: number;
  /** Microseconds of CLOCK_MONOTONIC (process.hrtime), the clock of V8's profile samples. */
  decisiveAtUs: number;
  arrivedAtUs: number;
  /** The service's garbage-collection pauses inside the window, and the longest of them (gcPauses.ts). */
  gcMs?: number;
  longestGcMs?: number;
  /**
   * When the service's watch received the decisive event, after the benchmark's watch did, and the
   * time its Deployment watches were blind (re-opening) inside the window (watchTimeline.ts).
   */
  serviceReceiptMs?: number;
  deploymentWatchBlindMs?: number;
}

function restartsByCause(before: readonly Sample[], after: readonly Sample[]): Record<string, number> {
  const causes = new Set(after.filter((s) => s.name === "stagewatch_watch_restarts_total").map((s) => s.labels["cause"] ?? ""));
  return Object.fromEntries(
    [...causes].map((cause) => [cause, total(after, "stagewatch_watch_restarts_total", { cause }) - total(before, "stagewatch_watch_restarts_total", { cause })]),
  );
}

export function latencies(values: readonly number[]): Latencies {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? null : Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! * 10) / 10);
  return { count: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}

/** The rollout-complete reading the Deployment rule settles on. */
export function rolledOut(deployment: V1Deployment): boolean {
  const replicas = deployment.spec?.replicas ?? 1;
  const status = deployment.status;
  return (
    (status?.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 1) &&
    (status?.updatedReplicas ?? 0) === replicas &&
    (status?.readyReplicas ?? 0) === replicas &&
    (status?.availableReplicas ?? 0) === replicas &&
    (status?.replicas ?? 0) === replicas &&
    !status?.terminatingReplicas
  );
}

/** Times of the first event in which a watched object met `decisive`, by namespace/name. */
export async function watchDecisive<T extends { metadata?: { namespace?: string; name?: string; resourceVersion?: string; labels?: Record<string, string> } }>(
  kubeConfig: KubeConfig,
  path: string,
  labelSelector: string,
  decisive: (object: T) => boolean,
  keyOf: (object: T) => string = (object) => `${object.metadata?.namespace}/${object.metadata?.name}`,
  onDecisive?: (key: string, atMs: number, object: T) => void,
): Promise<{ times: Map<string, number>; stop: () => void }> {
  const times = new Map<string, number>();
  let stopped = false;
  let controller: AbortController | undefined;
  const start = async () => {
    controller = await new Watch(kubeConfig).watch(path, { labelSelector, allowWatchBookmarks: false }, (phase, object: T) => {
      const now = performance.now();
      const key = keyOf(object);
      if ((phase === "ADDED" || phase === "MODIFIED") && !times.has(key) && decisive(object)) {
        times.set(key, now);
        onDecisive?.(key, now, object);
      }
    }, () => {
      // A watch the server ended is opened again; events missed meanwhile would show as missing.
      if (!stopped) void start();
    });
  };
  await start();
  return { times, stop: () => { stopped = true; controller?.abort(); } };
}

/** Verdicts as a subscriber receives them: arrival time and outcome by observation id. */
/**
 * A verdict as the benchmark received it first: on its monotonic clock, and on the wall clock the
 * service stamps decidedAt in; and when the stream's copy came, if it has.
 */
export interface ReceivedVerdict {
  atMs: number;
  wallAtMs: number;
  streamCopyAtMs?: number;
  outcome: string;
  verdict: unknown;
}

/**
 * Every verdict of the run, as a waiting client gets it: from whichever copy comes first, the
 * notice the service sends on its core subject the moment the verdict is stored (what the client
 * resolves on, `bus/client/client.ts`) or the stream's copy, which waits for the observation's earlier
 * events to be stored. Only those two kinds of message are parsed: the benchmark stamps both ends
 * of every latency on its own event loop, so it must not spend it on every progress event.
 */
export function subscribeVerdicts(nc: NatsConnection, prefix: string, onChange?: (observationId: string, verdict: ReceivedVerdict) => void): Map<string, ReceivedVerdict> {
  const verdicts = new Map<string, ReceivedVerdict>();
  const take = (text: string, copy: "notice" | "stream") => {
    const atMs = performance.now();
    // Read at arrival, not turned from atMs by an offset taken earlier: this machine's wall clock
    // ran 2 ms a second off the monotonic one (a virtual machine's clock being corrected), which
    // put the split's two halves 0.7 s apart over an 8-minute run.
    const wallAtMs = Date.now();
    const event = JSON.parse(text) as { type: string; observationId: string; verdict?: { outcome: string } };
    if (event.type !== "verdict") return;
    let known = verdicts.get(event.observationId);
    if (known === undefined) {
      known = { atMs, wallAtMs, ...(copy === "stream" && { streamCopyAtMs: atMs }), outcome: event.verdict!.outcome, verdict: event.verdict };
      verdicts.set(event.observationId, known);
    } else if (copy === "stream" && known.streamCopyAtMs === undefined) known.streamCopyAtMs = atMs;
    else return;
    onChange?.(event.observationId, known);
  };
  nc.subscribe(`${prefix}.verdicts.>`, { callback: (_, message) => take(message.string(), "notice") });
  nc.subscribe(`${prefix}.events.>`, {
    callback: (_, message) => {
      const text = message.string();
      if (text.includes('"type":"verdict"')) take(text, "stream");
    },
  });
  return verdicts;
}

export interface ObserveBody {
  key: string;
  deployment: string;
  require: "healthy";
  timeoutSeconds: number;
  absentGraceSeconds?: number;
  resources: { apiVersion: string; kind: string; namespace: string; name: string }[];
}

export async function requestObservation(nc: NatsConnection, prefix: string, body: ObserveBody): Promise<string> {
  const reply = (await nc.request(`${prefix}.observe`, JSON.stringify(body), { timeout: 30_000 })).json<{ ok: boolean; observationId?: string; error?: unknown }>();
  if (!reply.ok || reply.observationId === undefined) throw new Error(`observe refused: ${JSON.stringify(reply.error)}`);
  return reply.observationId;
}

async function inBatches<T>(items: readonly T[], size: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) await each(items[next++]!);
    }),
  );
}

async function until(what: string, timeoutMs: number, done: () => boolean | Promise<boolean>, orElse: "throw" | "return" = "throw"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) {
      if (orElse === "return") return;
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The process's read and write system calls so far; undefined without /proc. */
function syscallCounts(pid: number | undefined): { reads: number; writes: number } | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN);
    return { reads: field("syscr"), writes: field("syscw") };
  } catch {
    return undefined;
  }
}

async function serviceSnapshot(service: RunningService): Promise<Sample[]> {
  service.process.kill("SIGUSR2");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return scrape(`${service.url}/metrics`);
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const growth = (before: readonly Sample[], after: readonly Sample[], name: string, match: Record<string, string> = {}) =>
  total(after, name, match) - total(before, name, match);

export function deploymentManifest(namespace: string, name: string, run: string, replicas: number, labels: Record<string, string> = {}): V1Deployment {
  const podLabels = { app: name, "bench-run": run, ...labels };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels: { "bench-run": run, ...labels } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: podLabels }, spec: { containers: [{ name: "app", image: "registry.example/bench:1" }] } },
    },
  };
}

export async function runClusterBench(options: ClusterBenchOptions): Promise<ClusterBenchResult> {
  const { log } = options;
  const run = randomBytes(3).toString("hex");
  const prefix = `bench-${run}`;
  const admin = new KubeConfig();
  admin.loadFromFile(options.kubeconfigPath);
  const core = admin.makeApiClient(CoreV1Api);
  const apps = admin.makeApiClient(AppsV1Api);
  const toolsNamespace = `bench-${run}-tools`;
  const namespaces = Array.from({ length: options.namespaces }, (_, i) => `bench-${run}-${i}`);
  const cleanups: (() => Promise<unknown>)[] = [];
  let accounting: Accounting | undefined;
  let service: RunningService | undefined;
  let nc: NatsConnection | undefined;
  let stamps: StampThread | undefined;
  const gcPausesFile = join(options.dir, `gc-pauses-${run}.json`);
  const watchesFile = join(options.dir, `watches-${run}.json`);
  const protocols: ControlProtocol[] = ["h2", "http/1.1"];
  const controlWatchesFile = (protocol: ControlProtocol) => join(options.dir, `control-watches-${protocol.replace("/", "")}-${run}.json`);
  let controls: ReturnType<typeof startControlWatcher>[] = [];
  try {
    for (const name of [toolsNamespace, ...namespaces]) {
      await core.createNamespace({ body: { metadata: { name, labels: { "bench-run": run } } } });
      cleanups.push(() => core.deleteNamespace({ name }).catch(() => undefined));
    }
    accounting = await setUpAccounting(admin, run, toolsNamespace, options.dir, {
      stagewatch: "read",
      "control-watcher": "read",
      ...(options.helmSample > 0 && { "helm-watcher": "admin", "helm-legacy": "admin" }),
    });
    await until("default ServiceAccounts", 60_000, async () => {
      const accounts = await core.listServiceAccountForAllNamespaces({ fieldSelector: "metadata.name=default" });
      return namespaces.every((ns) => accounts.items.some((a) => a.metadata?.namespace === ns));
    });

    log(`starting stagewatch serve (subject prefix ${prefix})`);
    service = await startServe(options.cli, {
      kubeconfigPath: accounting.tools["stagewatch"]!.kubeconfigPath,
      natsUrl: options.natsUrl,
      dir: options.dir,
      // The benchmark is one caller standing in for a cluster's many pipelines: admission's
      // per-caller limits (500 in flight, 50 requests a second) would refuse most of it.
      args: [
        `--subject-prefix=${prefix}`,
        "--log-level=warn",
        `--max-in-flight=${Math.max(2_000, options.observations)}`,
        `--max-in-flight-per-caller=${Math.max(500, options.observations)}`,
        "--requests-per-second=100000",
      ],
      env: {
        NODE_OPTIONS: [
          "--expose-gc",
          // As the image runs it (Dockerfile).
          "--max-semi-space-size=16",
          // Before gc-on-signal: their SIGUSR2 handlers write (and drop) what they recorded before those collections.
          `--import=${new URL("gc-pauses-on-signal.ts", import.meta.url).pathname}`,
          `--import=${new URL("watches-on-signal.ts", import.meta.url).pathname}`,
          `--import=${new URL("gc-on-signal.ts", import.meta.url).pathname}`,
          ...(options.profileDir === undefined ? [] : [`--import=${new URL("profile-on-signal.ts", import.meta.url).pathname}`]),
        ].join(" "),
        // As the image runs it (Dockerfile).
        MALLOC_ARENA_MAX: "2",
        STAGEWATCH_BENCH_GC_FILE: gcPausesFile,
        STAGEWATCH_BENCH_WATCH_FILE: watchesFile,
        ...(options.profileDir !== undefined && { STAGEWATCH_BENCH_PROFILE_DIR: options.profileDir }),
        ...(options.heapSnapshot && { STAGEWATCH_BENCH_HEAP_SNAPSHOT: "1" }),
      },
    });
    nc = await connect({ servers: options.natsUrl });
    stamps = await startStampThread({ kubeconfigPath: options.kubeconfigPath, natsUrl: options.natsUrl, prefix });
    const { verdicts, decisive, decisiveResourceVersions } = stamps;
    // The service's informers start on the first request naming a kind: one observation of a
    // Deployment and one of a Job before anything is measured, so the informers' lists and
    // watches are not counted as the observations' requests.
    const warmRun = `${run}-warm`;
    await apps.createNamespacedDeployment({ namespace: namespaces[0]!, body: deploymentManifest(namespaces[0]!, "warm-up", warmRun, 1) });
    await admin.makeApiClient(BatchV1Api).createNamespacedJob({
      namespace: namespaces[0]!,
      body: {
        metadata: { name: "warm-up-job", labels: { "bench-run": warmRun } },
        spec: { template: { metadata: { labels: { "bench-run": warmRun } }, spec: { restartPolicy: "Never", containers: [{ name: "job", image: "registry.example/bench-job:1" }] } } },
      },
    });
    const warmId = await requestObservation(nc, prefix, {
      key: `${prefix}/warm-up`, deployment: "bench", require: "healthy", timeoutSeconds: 120,
      resources: [
        { apiVersion: "apps/v1", kind: "Deployment", namespace: namespaces[0]!, name: "warm-up" },
        { apiVersion: "batch/v1", kind: "Job", namespace: namespaces[0]!, name: "warm-up-job" },
      ],
    });
    await until("the warm-up verdict", 120_000, () => verdicts.has(warmId));
    controls = protocols.map((protocol) => startControlWatcher(accounting!.tools["control-watcher"]!.kubeconfigPath, controlWatchesFile(protocol), protocol));
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const before = await serviceSnapshot(service);
    const syscallsBefore = syscallCounts(service.process.pid);
    const measuredFrom = performance.now();
    // The stamp thread stamps both ends of every latency; this thread's delay is what it spares them.
    const benchLoopDelay = monitorEventLoopDelay({ resolution: 10 });
    benchLoopDelay.enable();
    const requestsBefore = await accounting.counts();
    const terminatedBefore = await accounting.terminatedWatchers();
    const podsPerDeployment = Math.max(1, Math.round(options.pods / options.observations));
    const deployments = Array.from({ length: options.observations }, (_, i) => ({ namespace: namespaces[i % namespaces.length]!, name: `app-${i}` }));
    await stamps.watchDecisive(`bench-run=${run}`);
    const observationOf = new Map<string, string>();
    const timeoutSeconds = options.observationBudgetSeconds;
    log(`creating ${deployments.length} Deployments of ${podsPerDeployment} pods over ${namespaces.length} namespaces, observing each`);
    const startedAt = performance.now();
    await inBatches(deployments, options.concurrency, async ({ namespace, name }) => {
      await apps.createNamespacedDeployment({ namespace, body: deploymentManifest(namespace, name, run, podsPerDeployment) });
      const id = await requestObservation(nc!, prefix, {
        key: `${prefix}/${namespace}/${name}`, deployment: "bench", require: "healthy", timeoutSeconds,
        resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace, name }],
      });
      observationOf.set(`${namespace}/${name}`, id);
    });
    log(`all created in ${Math.round((performance.now() - startedAt) / 1000)} s; waiting for ${deployments.length} verdicts`);
    let lastReport = 0;
    await until("every verdict", (timeoutSeconds + 30) * 1000, () => {
      const received = [...observationOf.values()].filter((id) => verdicts.has(id)).length;
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        log(`${received}/${deployments.length} verdicts, ${decisive.size} rolled out`);
      }
      return received === deployments.length;
    }, "return");
    const rolledOutAt = Math.max(...decisive.values());
    // A client gets the verdict from its notice the moment it is stored (before the stream has
    // acknowledged its copy), while the service observes event_to_verdict_seconds once that
    // acknowledgement is in: on a loaded machine the last samples come a little after the last verdict.
    // Not every verdict has one: a Deployment that rolled out before its observation was accepted
    // is decided from the cache, with no watch event to measure from (on a quiet machine, half of
    // the e2e test's six), so this waits a few seconds at most.
    const verdictsIn = [...observationOf.values()].filter((id) => verdicts.has(id)).length;
    const metricsUrl = `${service.url}/metrics`;
    await until("the service's event-to-verdict samples", 5_000, async () => {
      const now = await scrape(metricsUrl);
      return total(now, "stagewatch_event_to_verdict_seconds_count") - total(before, "stagewatch_event_to_verdict_seconds_count") >= verdictsIn;
    }, "return");
    const measuredSeconds = (performance.now() - measuredFrom) / 1000;
    benchLoopDelay.disable();
    const stampThreadLoopDelay = await stamps.stop();
    stamps = undefined;
    const after = await serviceSnapshot(service);
    const syscallsAfter = syscallCounts(service.process.pid);
    const requestsAfter = await accounting.counts();
    const terminatedAfter = await accounting.terminatedWatchers();
    await Promise.all(controls.map((control) => control.stop()));
    controls = [];

    const gcPauses = readGcPauses(gcPausesFile);
    const watchRecording = readWatchRecording(watchesFile);
    const receipts = watchRecording && deploymentReceipts(watchRecording);
    const stretches = watchRecording ? blindStretches(watchRecording.watches) : [];
    const afterEvent: number[] = [];
    const streamCopyAfterEvent: number[] = [];
    const timed: SlowVerdict[] = [];
    let succeeded = 0;
    for (const [key, id] of observationOf) {
      const verdict = verdicts.get(id);
      const at = decisive.get(key);
      if (verdict?.outcome === "succeeded") succeeded += 1;
      if (verdict === undefined || at === undefined) continue;
      afterEvent.push(verdict.atMs - at);
      if (verdict.streamCopyAtMs !== undefined) streamCopyAfterEvent.push(verdict.streamCopyAtMs - at);
      const decidedAtMs = Date.parse((verdict.verdict as { decidedAt?: string }).decidedAt ?? "");
      if (Number.isNaN(decidedAtMs)) continue;
      timed.push({
        key,
        ms: Math.round((verdict.atMs - at) * 10) / 10,
        toDecisionMs: Math.round(verdict.atMs - at - (verdict.wallAtMs - decidedAtMs)),
        decisionToSubscriberMs: Math.round(verdict.wallAtMs - decidedAtMs),
        decisiveAtUs: Math.round(toMonotonicUs(at)),
        arrivedAtUs: Math.round(toMonotonicUs(verdict.atMs)),
        ...(receipts && receiptInWindow(receipts, stretches, decisiveResourceVersions.get(key), toMonotonicUs(at), toMonotonicUs(verdict.atMs))),
      });
    }
    const podsCached = total(after, "stagewatch_informer_objects", { kind: "core/Pod" }) || total(after, "stagewatch_informer_objects", { kind: "Pod" });
    const heapBefore = total(before, "stagewatch_nodejs_heap_size_used_bytes");
    const heapAfter = total(after, "stagewatch_nodejs_heap_size_used_bytes");
    const cpuSeconds = total(after, "stagewatch_process_cpu_seconds_total") - total(before, "stagewatch_process_cpu_seconds_total");
    const watchEvents = total(after, "stagewatch_watch_events_total") - total(before, "stagewatch_watch_events_total");
    const stagewatchRequests = difference(requestsAfter["stagewatch"]!, requestsBefore["stagewatch"]!);
    const seconds = (rolledOutAt - startedAt) / 1000;
    const result: ClusterBenchResult = {
      sizes: { observations: options.observations, pods: podsPerDeployment * options.observations, podsPerDeployment, namespaces: options.namespaces },
      verdicts: { received: afterEvent.length, succeeded, missing: deployments.length - afterEvent.length },
      afterDecisiveEvent: latencies(afterEvent),
      streamCopyAfterDecisiveEvent: latencies(streamCopyAfterEvent),
      afterDecisiveEventSplit: {
        toDecision: latencies(timed.map((verdict) => verdict.toDecisionMs)),
        decisionToSubscriber: latencies(timed.map((verdict) => verdict.decisionToSubscriberMs)),
      },
      slowestVerdicts: timed
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 20)
        .map((verdict) => (gcPauses === undefined ? verdict : { ...verdict, ...gcInWindow(gcPauses, verdict.decisiveAtUs, verdict.arrivedAtUs) })),
      serviceEventToVerdict: histogramQuantiles(before, after, "stagewatch_event_to_verdict_seconds", [0.5, 0.99]),
      benchEventLoopDelay: loopDelayOf(benchLoopDelay),
      stampThreadEventLoopDelay: stampThreadLoopDelay,
      cluster: { podsCachedByService: podsCached, secondsToCreateAndRollOut: Math.round(seconds), podsReadyPerSecond: Math.round((podsPerDeployment * options.observations) / seconds) },
      service: {
        heapBytesBefore: heapBefore,
        heapBytesAfter: heapAfter,
        heapBytesPerCachedPod: Math.round((heapAfter - heapBefore) / Math.max(1, podsCached)),
        rssBytes: total(after, "stagewatch_process_resident_memory_bytes"),
        cpuSeconds: Math.round(cpuSeconds * 100) / 100,
        watchEvents,
        cpuSecondsPer1000WatchEvents: Math.round((cpuSeconds / Math.max(1, watchEvents)) * 1000 * 1000) / 1000,
        watchEventsPerSecondDelivered: Math.round(watchEvents / measuredSeconds),
        watchEventsPerCpuSecond: Math.round(watchEvents / Math.max(0.01, cpuSeconds)),
        gcSeconds: round3(growth(before, after, "stagewatch_nodejs_gc_duration_seconds_sum")),
        majorGcSeconds: round3(growth(before, after, "stagewatch_nodejs_gc_duration_seconds_sum", { kind: "major" })),
        majorGcs: growth(before, after, "stagewatch_nodejs_gc_duration_seconds_count", { kind: "major" }),
        eventLoopLagMaxSeconds: round3(total(after, "stagewatch_nodejs_eventloop_lag_max_seconds")),
        ...(gcPauses !== undefined && { gcPauses: summarizeGcPauses(gcPauses) }),
        ...(watchRecording !== undefined && { watches: summarizeWatches(watchRecording, toMonotonicUs(measuredFrom), toMonotonicUs(measuredFrom + measuredSeconds * 1000)) }),
        ...(syscallsBefore && syscallsAfter && {
          writeSyscalls: syscallsAfter.writes - syscallsBefore.writes,
          readSyscalls: syscallsAfter.reads - syscallsBefore.reads,
          writeSyscallsPer1000WatchEvents: Math.round(((syscallsAfter.writes - syscallsBefore.writes) / Math.max(1, watchEvents)) * 1000),
        }),
      },
      apiRequests: {
        stagewatch: stagewatchRequests,
        stagewatchPerObservation: sum(stagewatchRequests) / options.observations,
        // The service's own account of the watches it opened again (server timeouts after
        // 300-600 s, errors, its watchdog): what its `watch` requests above are, if any.
        watchRestartsByCause: restartsByCause(before, after),
        terminatedWatchersByResource: Object.fromEntries(
          Object.entries(terminatedAfter).map(([resource, n]) => [resource, n - (terminatedBefore[resource] ?? 0)]).filter(([, n]) => n !== 0),
        ),
      },
      controlWatchers: Object.fromEntries(
        protocols.flatMap((protocol) => {
          const recording = readWatchRecording(controlWatchesFile(protocol));
          return recording === undefined ? [] : [[protocol, summarizeWatches(recording, toMonotonicUs(measuredFrom), toMonotonicUs(measuredFrom + measuredSeconds * 1000))["pods"]!]];
        }),
      ),
    };
    if (options.helmSample > 0) {
      log(`Helm sample: ${options.helmSample} releases per scenario and wait mode`);
      result.helm = await runHelmSample({
        admin, accounting, nc, prefix, run, namespace: namespaces[0]!, dir: options.dir,
        sample: options.helmSample, timeoutSeconds: options.helmTimeoutSeconds, log, ...(options.helm !== undefined && { helm: options.helm }),
      });
    }
    return result;
  } finally {
    await stamps?.stop().catch(() => undefined);
    await Promise.all(controls.map((control) => control.stop()));
    await nc?.close().catch(() => undefined);
    await service?.process.stop();
    await accounting?.cleanup();
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

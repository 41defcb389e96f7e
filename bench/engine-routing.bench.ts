// Watch events per second with 1,000 observations in progress, each a Deployment rolling out with
// its ReplicaSet and 3 pods, in two designs fed the same pre-stripped events:
// - index: the ObservationEngine, which finds the observations an event concerns through its
//   indexes (identity key, controller UIDs) and runs the Deployment's rule and the reducer for
//   them;
// - filtering: every observation filters every event with an RxJS `filter` on its identities and
//   UIDs, and only counts what passes: a baseline that does strictly less work per event than the
//   engine, so the gap is the cost of filtering alone.
// Two streams: pod updates of the observed Deployments (every event concerns one observation) and
// pod updates of 1,000 Deployments nobody observes (the rest of a shared cluster). Plus the heap
// one observation costs in each design. Warning events go through the engine's own route beside
// the pod route (a FailedCreate repeating on each observed ReplicaSet, and on unobserved ones),
// and the heap one cached warning costs in the WarningIndex beside one cached stripped pod. Informers are replaced by a cache and a Subject so the
// numbers are routing and deciding, not JSON parsing and stripping (streams-memory measures those).
import { BehaviorSubject, Observable, Subject, VirtualTimeScheduler, filter, type Subscription } from "rxjs";
import type { KubeObject } from "../src/kube/objects.ts";
import {
  LeaseKeeper,
  ObservationEngine,
  defaultLeaseTiming,
  noopLeaseMetrics,
  type EventStore,
  type KindSource,
} from "../src/observations/index.ts";
import { InMemoryLeaseStore } from "../src/observations/testing/index.ts";
import { silentLogger } from "../src/logging/index.ts";
import { controllerOf } from "../src/ownership/index.ts";
import {
  ObjectCache,
  WarningIndex,
  builtinMappings,
  stripObject,
  type Informer,
  type InformerProblem,
  type ResourceMapping,
  type WarningSource,
  type WatchEvent,
} from "../src/streams/index.ts";
import { decodeWarningEvent, type ClusterWarning } from "../src/kube/warnings.ts";
import { legacyWarning } from "../test/fixtures/kube/events.ts";
import { ObservationRequest, objectIdentityKey, parseWith, type ObservationEvent } from "../src/verdicts/index.ts";
import { pod, running } from "../test/fixtures/kube/pods.ts";
import { rollingOut } from "./support/rollingOut.ts";
import { discardingRecords } from "./support/discardingRecords.ts";
import { collectGarbage, writeResults } from "./support/results.ts";

const observations = 1_000;
const podsPerDeployment = 3;
const rounds = 5;
const roundMs = 500;

// ---- the cluster: observed and unobserved Deployments, rolling out, 1 of 3 pods ready ----------

function mappingOf(kind: string): ResourceMapping {
  const mapping = builtinMappings.find((m) => m.kind === kind);
  if (!mapping) throw new Error(`no built-in mapping for ${kind}`);
  return mapping;
}

function stripped(object: KubeObject): KubeObject {
  const { apiVersion, kind, kindKey } = mappingOf(object.kind);
  const result = stripObject(JSON.parse(JSON.stringify(object)), { apiVersion, kind, kindKey, metadataOnly: false });
  if (!result) throw new Error(`cannot strip ${object.kind} ${object.metadata.name}`);
  return result;
}

interface App {
  deployment: KubeObject;
  replicaSet: KubeObject;
  pods: KubeObject[];
}

function app(name: string): App {
  const { deployment: rolling, replicaSet: rs } = rollingOut(name, podsPerDeployment, 1);
  const pods = Array.from({ length: podsPerDeployment }, (_, i) =>
    pod({ name: `${name}-7f9c6d8b5-${i.toString(36).padStart(5, "0")}`, owner: rs, containers: [running(name, { ready: i === 0 })] }),
  );
  return { deployment: stripped(rolling), replicaSet: stripped(rs), pods: pods.map(stripped) };
}

const observed = Array.from({ length: observations }, (_, i) => app(`app-${i}`));
const unobserved = Array.from({ length: observations }, (_, i) => app(`other-${i}`));

/**
 * Pod updates as the informer delivers them: a new object each time (the kubelet's status writes).
 * Two passes of distinct copies, so that going round the stream a pod never comes as the very object
 * it came as last: the engine skips a pod whose stripped parts are those it holds (a re-send), and
 * this measures updates it must judge.
 */
const updatesOf = (apps: readonly App[]): WatchEvent[] =>
  [0, 1].flatMap(() => apps.flatMap((a) => a.pods.map((p) => ({ type: "modified" as const, object: structuredClone(p) }))));
const observedUpdates = updatesOf(observed);
const unobservedUpdates = updatesOf(unobserved);

// ---- informers reduced to a cache and a Subject -------------------------------------------------

class BenchInformer implements Informer {
  readonly mapping: ResourceMapping;
  readonly changes = new Subject<WatchEvent>();
  readonly events$: Observable<WatchEvent>;
  readonly synced$ = new BehaviorSubject(true);
  readonly problems$ = new BehaviorSubject<readonly InformerProblem[]>([]);
  private readonly cache = new ObjectCache();

  constructor(mapping: ResourceMapping, objects: readonly KubeObject[]) {
    this.mapping = mapping;
    for (const object of objects) this.cache.upsert(object);
    this.events$ = new Observable<WatchEvent>((subscriber) => {
      for (const object of this.cache.list()) subscriber.next({ type: "added", object });
      return this.changes.subscribe(subscriber);
    });
  }

  deliver(event: WatchEvent): void {
    this.cache.upsert(event.object);
    this.changes.next(event);
  }

  hasSynced = () => true;
  get = (namespace: string | undefined, name: string) => this.cache.get(namespace, name);
  list = (namespace?: string) => this.cache.list(namespace);
  stop = () => undefined;
}

const everything = [...observed, ...unobserved];
const informers = new Map<string, BenchInformer>([
  ["apps/Deployment", new BenchInformer(mappingOf("Deployment"), everything.map((a) => a.deployment))],
  ["apps/ReplicaSet", new BenchInformer(mappingOf("ReplicaSet"), everything.map((a) => a.replicaSet))],
  ["core/Pod", new BenchInformer(mappingOf("Pod"), everything.flatMap((a) => a.pods))],
]);
const podInformer = informers.get("core/Pod")!;

const kinds: KindSource = {
  namespaces: undefined,
  resolve: async (_apiVersion, kind) => mappingOf(kind),
  informer: (target) => informers.get(target.kindKey)!,
};

const records = discardingRecords();

let published = 0;
const events: EventStore = { publish: async (_event: ObservationEvent) => void published++, hasVerdict: async () => false, discard: () => {} };

function requestFor(name: string): ObservationRequest {
  const parsed = parseWith(ObservationRequest, {
    key: `ci-4812/${name}`,
    deployment: name,
    require: "healthy",
    timeoutSeconds: 7 * 24 * 3600,
    defaultNamespace: "payments",
    resources: [{ apiVersion: "apps/v1", kind: "Deployment", name }],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

// ---- measuring ------------------------------------------------------------------------------

/** Events per second delivering `stream` round-robin; the median of `rounds` rounds of ~roundMs each. */
function throughput(stream: readonly WatchEvent[]): number {
  return measureRate((i) => podInformer.deliver(stream[i % stream.length]!));
}

/** Calls per second of `deliver(0), deliver(1), ...`; the median of `rounds` rounds of ~roundMs each. */
function measureRate(deliver: (i: number) => void): number {
  const rates: number[] = [];
  let next = 0;
  for (let round = 0; round <= rounds; round++) {
    let delivered = 0;
    const started = performance.now();
    let elapsed = 0;
    while (elapsed < roundMs) {
      for (let i = 0; i < 100; i++) deliver(next++);
      delivered += 100;
      elapsed = performance.now() - started;
    }
    // Round 0 warms the JIT up and is not counted.
    if (round > 0) rates.push((delivered / elapsed) * 1000);
  }
  return Math.round(rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!);
}

/** Heap bytes per observation: growth over `observations` of them, after full collections. */
async function heapPerObservation(start: () => Promise<void>): Promise<number> {
  await drain();
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  await start();
  await drain();
  collectGarbage();
  return Math.round((process.memoryUsage().heapUsed - before) / observations);
}

// ---- the informer alone: its cache and Subject, with nobody subscribed ---------------------------

const informerAlone = throughput(observedUpdates);

// ---- the index: the ObservationEngine -----------------------------------------------------------

// Virtual time that never moves: no budget runs out while measuring.
const scheduler = new VirtualTimeScheduler();
scheduler.frame = Date.parse("2026-11-29T10:00:00Z");

// The WarningFeed reduced to its index and a Subject, as the informers are to a cache and a Subject.
const warningIndex = new WarningIndex();
const warningArrivals = new Subject<ClusterWarning>();
const warnings: WarningSource = {
  warnings$: warningArrivals,
  newest: (object) => warningIndex.newest(object, scheduler.now()),
  newestNamed: (kind, namespace, name) => warningIndex.newestNamed(kind, namespace, name, scheduler.now()),
  newestAutoscalerWord: () => undefined,
};
const quotaMessage = (name: string) =>
  `Error creating: pods "${name}-x2k8p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1`;
/** A FailedCreate on each ReplicaSet, its count going up each time round, decoded as the feed decodes it. */
function failedCreates(apps: readonly App[], repeats: number): ClusterWarning[] {
  return Array.from({ length: repeats }, (_, count) =>
    apps.map((a) => {
      const event = legacyWarning(a.replicaSet, { reason: "FailedCreate", message: quotaMessage(a.replicaSet.metadata.name), count: count + 1, lastTimestamp: "2026-11-29T10:00:00Z" });
      return decodeWarningEvent(JSON.parse(JSON.stringify(event)))!.warning!;
    }),
  ).flat();
}
const observedWarnings = failedCreates(observed, 20);
// other-0 is observed too: the engine's first observation, made before measuring.
const unobservedWarnings = failedCreates(unobserved.slice(1), 20);

/** Warnings per second through the index and the engine's route, as the feed delivers them. */
function warningThroughput(stream: readonly ClusterWarning[]): number {
  return measureRate((i) => {
    const warning = stream[i % stream.length]!;
    if (warningIndex.offer(warning, scheduler.now())) warningArrivals.next(warning);
  });
}
// Leases live in KV too; the in-memory store keeps one small entry per observation.
const leases = new LeaseKeeper({
  store: new InMemoryLeaseStore(),
  replicaId: "bench",
  timing: defaultLeaseTiming,
  scheduler,
  metrics: noopLeaseMetrics,
  logger: silentLogger,
});
// Every observation started at one virtual instant, by one caller: admission's limits would refuse most.
const admissionLimits = { inFlight: 10 * observations, inFlightPerCaller: 10 * observations, requestsPerSecond: 10 * observations };
const engine = new ObservationEngine({ kinds, events, records, leases, scheduler, warnings, admissionLimits });
// One observation first, so the shared subscriptions and the owner index exist before measuring.
await engine.observe(requestFor("other-0"));
const engineHeap = await heapPerObservation(async () => {
  for (const a of observed) await engine.observe(requestFor(a.deployment.metadata.name));
});
if (engine.activeCount !== observations + 1) throw new Error(`expected ${observations + 1} observations in progress, found ${engine.activeCount}`);
// One pass first: each Deployment's first reading with its pods is a transition; the rest are not.
for (const update of observedUpdates) podInformer.deliver(update);
const publishedBefore = published;
const index = { observedPods: throughput(observedUpdates), unobservedPods: throughput(unobservedUpdates) };
if (published !== publishedBefore) throw new Error(`the measured updates changed readings: ${published - publishedBefore} events published`);
// The first FailedCreate of each ReplicaSet is news (one progress event each); its repeats change only the count.
await drain();
const publishedBeforeFirstWarnings = published;
for (const warning of observedWarnings.slice(0, observations)) if (warningIndex.offer(warning, scheduler.now())) warningArrivals.next(warning);
await drain();
if (published - publishedBeforeFirstWarnings !== observations) {
  throw new Error(`the first warnings published ${published - publishedBeforeFirstWarnings} events, not one per observation`);
}
const warningRoute = { observedReplicaSets: warningThroughput(observedWarnings), unobservedReplicaSets: warningThroughput(unobservedWarnings) };
await drain();
if (published !== publishedBeforeFirstWarnings + observations) throw new Error("repeated warnings published events");
if (engine.activeCount !== observations + 1) throw new Error("an observation ended while measuring");
engine.stop();

// ---- the baseline: every observation filters every event --------------------------------------

const subscriptions: Subscription[] = [];
let matched = 0;
const filteringHeap = await heapPerObservation(async () => {
  for (const a of observed) {
    const identities = new Set([objectIdentityKey(a.deployment)]);
    const owners = new Set([a.deployment.metadata.uid, a.replicaSet.metadata.uid]);
    subscriptions.push(
      podInformer.changes
        .pipe(filter(({ object }) => identities.has(objectIdentityKey(object)) || owners.has(controllerOf(object)?.uid ?? "")))
        .subscribe(() => void matched++),
    );
  }
});
const filtering = { observedPods: throughput(observedUpdates), unobservedPods: throughput(unobservedUpdates) };
if (matched === 0) throw new Error("the filtering baseline matched nothing");
for (const subscription of subscriptions) subscription.unsubscribe();

// ---- heap per cached warning, beside a cached stripped pod ----------------------------------------

const cachedWarnings = 10_000;
/** Heap bytes per kept item: growth over `count` of them, after full collections. */
async function heapPer(count: number, keep: (i: number) => void): Promise<number> {
  await drain();
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) keep(i);
  collectGarbage();
  return Math.round((process.memoryUsage().heapUsed - before) / count);
}
// Distinct objects and messages, as in a cluster: each warning's strings are its own.
const warningLines = Array.from({ length: cachedWarnings }, (_, i) => {
  const rs = { ...observed[i % observations]!.replicaSet, metadata: { ...observed[0]!.replicaSet.metadata, name: `svc-${i}-7f9c6d8b5`, uid: `rs-uid-${i.toString(16).padStart(12, "0")}` } };
  return JSON.stringify(legacyWarning(rs, { reason: "FailedCreate", message: quotaMessage(rs.metadata.name), count: 3, lastTimestamp: "2026-11-29T10:00:00Z" }));
});
const heldIndex = new WarningIndex({ maxObjects: cachedWarnings });
const heapPerWarning = await heapPer(cachedWarnings, (i) => heldIndex.offer(decodeWarningEvent(JSON.parse(warningLines[i]!))!.warning!, scheduler.now()));
if (heldIndex.size !== cachedWarnings) throw new Error(`the index holds ${heldIndex.size} warnings`);
const podLines = everything.flatMap((a) => a.pods).map((p) => JSON.stringify(p));
const heldPods = new ObjectCache();
const heapPerPod = await heapPer(podLines.length, (i) => heldPods.upsert(stripObject(JSON.parse(podLines[i]!), { ...mappingOf("Pod"), metadataOnly: false })!));

const results = {
  observations,
  podsPerDeployment,
  clusterPods: everything.length * podsPerDeployment,
  rounds,
  roundMs,
  eventsPerSecond: {
    informerAlone: {
      observedPods: informerAlone,
      design: "the stand-in informer's cache update and Subject, no subscriber: the floor under both designs",
    },
    index: { ...index, design: "ObservationEngine: index lookup, then the Deployment rule and the reducer for the one observation concerned" },
    filtering: { ...filtering, design: "every observation filters every event (RxJS filter on identity key and owner UIDs), then only counts" },
  },
  indexOverFiltering: {
    observedPods: Math.round(index.observedPods / filtering.observedPods),
    unobservedPods: Math.round(index.unobservedPods / filtering.unobservedPods),
  },
  heapBytesPerObservation: { index: engineHeap, filtering: filteringHeap },
  warningEvents: {
    eventsPerSecond: {
      ...warningRoute,
      podRouteBaseline: index.observedPods,
      design: "WarningIndex.offer, then the engine's route: owned ReplicaSet by UID, its Deployment's observers, the rule and the reducer (a repeat changes the count only)",
    },
    heapBytesPerCachedWarning: heapPerWarning,
    heapBytesPerCachedPodBaseline: heapPerPod,
    cachedWarnings,
  },
};
const file = writeResults("engine-routing", results);
console.log(
  `index ${index.observedPods} / ${index.unobservedPods} events/s, filtering ${filtering.observedPods} / ${filtering.unobservedPods} events/s ` +
    `(observed / unobserved pods); heap per observation ${engineHeap} B (index), ${filteringHeap} B (filtering); ` +
    `warnings ${warningRoute.observedReplicaSets} / ${warningRoute.unobservedReplicaSets} events/s, ${heapPerWarning} B per cached warning (pod ${heapPerPod} B) -> ${file}`,
);

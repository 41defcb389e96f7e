// The real engine as `serve` wires it, without the request server (requests are admitted through
// its queue, as serve admits them): informers over the watch
// stand-in (bench/watch), the observation driver, record writer, lease keeper with its heartbeat
// and event publisher against a real nats-server with JetStream, on the service's own connection
// options; with `adopt`, the Adopter too, and a second replica (its own connection, leases and
// engine, the first one's informers) can hand observations over to it. bench/bus-ops runs it for the code as it is and for a commit taken from git (the
// modules are passed in, loaded from either tree); bench/scale-curve likewise, or for the code as it is alone.
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { asyncScheduler } from "rxjs";
import { standInKubeConfig } from "../watch/standIn.ts";

type Bus = typeof import("../../src/bus/index.ts");
type Streams = typeof import("../../src/streams/index.ts");
type Observations = typeof import("../../src/observations/index.ts");
type Verdicts = typeof import("../../src/verdicts/index.ts");
type RequestQueueModule = typeof import("../../src/bus/server/requestQueue.ts");
export interface Implementation {
  name: string;
  bus: Bus;
  streams: Streams;
  observations: Observations;
  verdicts: Verdicts;
  RequestQueue: RequestQueueModule["RequestQueue"];
}

/** The engine's modules from the source tree at `root` (this repository, or a commit extracted from git). */
export async function loadImplementation(name: string, root: string): Promise<Implementation> {
  const [bus, streams, observations, verdicts, requestQueue] = await Promise.all([
    import(join(root, "src/bus/index.ts")) as Promise<Bus>,
    import(join(root, "src/streams/index.ts")) as Promise<Streams>,
    import(join(root, "src/observations/index.ts")) as Promise<Observations>,
    import(join(root, "src/verdicts/index.ts")) as Promise<Verdicts>,
    // serve's admission of requests (not exported by the bus's index: only its request server uses it).
    import(join(root, "src/bus/server/requestQueue.ts")) as Promise<RequestQueueModule>,
  ]);
  return { name, bus, streams, observations, verdicts, RequestQueue: requestQueue.RequestQueue };
}

export interface NatsEngineOptions {
  natsUrl: string;
  watchPort: number;
  /**
   * Connect as the service does since it builds no Error ahead of each request (src/service/service.ts);
   * by default only the code as it is does, as a baseline older than that did not.
   */
  noAsyncTraces?: boolean;
  /** The subject prefix, and so the buckets and stream: one of its own per run. */
  prefix: string;
  /** Every watch event the informers receive, by kind key (`apps/Deployment`, `core/Pod`). */
  onWatchEvent?: (kind: string) => void;
  /** The engine's own event-to-verdict histogram: watch event received to the verdict's stream acknowledgement. */
  onEventToVerdict?: (milliseconds: number) => void;
  /** The replica's id (default `bench`): a second replica on the same prefix has another. */
  replicaId?: string;
  /** Runs the Adopter as `serve` does: leases another replica released or let expire are taken over. */
  adopt?: boolean;
  /** Another engine's informers (a second replica in the same process): not stopped with this one. */
  hub?: InstanceType<Streams["InformerHub"]>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {}, child() { return silent; } };

export async function startNatsEngine(impl: Implementation, options: NatsEngineOptions) {
  const { bus, streams, observations: engineModule, verdicts, RequestQueue } = impl;
  const names = bus.busNames(options.prefix);
  // The service's own connection (src/service/service.ts): the current one builds no Error ahead of each request.
  const nc = await connect({ servers: options.natsUrl, ...((options.noAsyncTraces ?? impl.name === "current") && { noAsyncTraces: true }) });
  const jsm = await jetstreamManager(nc);
  await bus.ensureEventStream(jsm, names, { replicas: 1 });
  const js = jetstream(nc);
  const records = await bus.openObservationRecords(js, { prefix: options.prefix });
  const leaseStore = await bus.openLeaseStore(js, { prefix: options.prefix });
  const events = bus.createEventPublisher({ js, jsm, prefix: options.prefix });
  const onWatchEvent = options.onWatchEvent ?? (() => {});
  const hub =
    options.hub ??
    new streams.InformerHub({
      transport: streams.kubeHttpTransport(standInKubeConfig(options.watchPort)),
      metrics: { watchEvent: (kind: string) => onWatchEvent(kind), watchRestart() {}, objects() {} },
    });
  const leases = new engineModule.LeaseKeeper({
    store: leaseStore,
    replicaId: options.replicaId ?? "bench",
    timing: engineModule.defaultLeaseTiming,
    scheduler: asyncScheduler,
    metrics: engineModule.noopLeaseMetrics,
    logger: silent,
  });
  const onEventToVerdict = options.onEventToVerdict ?? (() => {});
  const engine = new engineModule.ObservationEngine({
    kinds: hub,
    records,
    leases,
    events,
    logger: silent,
    // One caller here stands in for the many a cluster's pipelines are: admission's per-caller
    // limit (500 in flight) would refuse most of what is measured.
    admissionLimits: { inFlight: 1_000_000, inFlightPerCaller: 1_000_000 },
    metrics: { ...engineModule.noopEngineMetrics, eventToVerdict: (seconds: number) => onEventToVerdict(seconds * 1000) },
  });
  // The first heartbeat is stored before any lease is taken: a lease is held by its holder's heartbeat.
  await leases.startHeartbeat();
  const adopter = options.adopt
    ? new engineModule.Adopter({ store: leaseStore, keeper: leases, engine, timing: engineModule.defaultLeaseTiming, scheduler: asyncScheduler, metrics: engineModule.noopLeaseMetrics, logger: silent })
    : undefined;
  await adopter?.start();

  return {
    names,
    hub,
    engine,
    /**
     * One observation per Deployment `app-0` ... `app-<count - 1>` (require healthy, an hour's
     * budget), Deployment d in `namespace(d)`, admitted as serve admits requests: through its
     * request queue (src/bus/server/requestQueue.ts, serve's defaults), a slice of them started a
     * turn and a bounded number in flight, all in one caller's lane.
     */
    async observeDeployments(count: number, namespace: (d: number) => string = () => "payments", name: (d: number) => string = (d) => `app-${d}`): Promise<void> {
      const queue = new RequestQueue();
      const failures: Error[] = [];
      for (let d = 0; d < count; d += 1) {
        // Parsed in its turn, as serve parses each request as it handles it: 10,000 parsed in one
        // loop would be a stall of the benchmark's own making.
        const offered = queue.offer("bench", async () => {
          const request = verdicts.parseWith(verdicts.ObservationRequest, {
            key: `bench/${name(d)}`,
            deployment: "bench",
            require: "healthy",
            timeoutSeconds: 3600,
            // A Deployment that is not there stays pending (absent) for its grace: in flight for the hour.
            absentGraceSeconds: 3600,
            defaultNamespace: namespace(d),
            resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: name(d) }],
          });
          if (!request.ok) {
            failures.push(new Error(JSON.stringify(request.issues)));
            return;
          }
          const result = await engine.observe(request.value);
          if (!result.ok) failures.push(new Error(`${name(d)} not observed: ${JSON.stringify(result)}`));
        });
        if (!offered) throw new Error(`${name(d)} refused by the request queue: more than ${queue.maxWaiting} waiting`);
      }
      await queue.idle();
      if (failures.length > 0) throw failures[0];
    },
    /** As `serve` on SIGTERM: every observation driven here handed back, so another replica adopts it at once. */
    async handOver(): Promise<void> {
      adopter?.stop();
      await engine.handOver();
    },
    async stop(): Promise<void> {
      adopter?.stop();
      engine.stop();
      leases.stopHeartbeat();
      if (!options.hub) hub.stop();
      await events.flush();
      if (!options.hub) await jsm.streams.delete(names.eventStream).catch(() => undefined);
      await nc.drain();
    },
  };
}

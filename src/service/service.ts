// `stagewatch serve`: wires the cluster (informers), the engine and the bus together, with
// metrics, health endpoints and logs. Everything that decides lives elsewhere; this file only
// connects, and stops what it started in the reverse order.
import { KubeConfig } from "@kubernetes/client-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { asyncScheduler } from "rxjs";
import {
  busNames,
  createEventPublisher,
  describeNatsConfig,
  ensureEventStream,
  openLeaseStore,
  openObservationRecords,
  startRequestServer,
  toConnectionOptions,
  type BusMetrics,
  type NatsConnectionConfig,
} from "../bus/index.js";
import {
  Adopter,
  LeaseKeeper,
  ObservationEngine,
  leaseTimingFor,
  type EngineMetrics,
  type LeaseMetrics,
} from "../observations/index.js";
import { InformerHub, kubeHttpTransport, kubePodLogReader, type StreamMetrics } from "../streams/index.js";
import { cachedFieldsOf, type Rule } from "../verdicts/index.js";
import { startOperationsServer, type OperationsServer } from "./httpServer.js";
import { createMetrics, type Metrics } from "./metrics.js";

/** A dependency the service cannot start without (NATS, the kubeconfig) is missing: exit 3, not a stack. */
export class ServiceStartError extends Error {
  override name = "ServiceStartError";
}

export interface ServiceConfig {
  /** Undefined: in-cluster config, or KUBECONFIG when set (client-node's loadFromDefault). */
  kubeConfig?: KubeConfig;
  nats: NatsConnectionConfig;
  namespaces?: readonly string[];
  metricsHost: string;
  metricsPort: number;
  subjectPrefix: string;
  /** CEL health checks of custom kinds, compiled (compileHealthChecks); they override the health library's. */
  healthChecks?: ReadonlyMap<string, Rule>;
  /** Warning events shown in readings (default true); off, events are never listed or watched. */
  warningEvents?: boolean;
  logger: Logger;
  /** This replica's id, in its leases and logs (the pod name in Kubernetes). */
  replicaId: string;
  /** Copies of the event stream and the KV buckets in a clustered JetStream (1 for a single server). */
  jetstreamReplicas?: number;
  /** How long a lease lasts unrenewed: the longest an observation waits for a new owner after a crash. */
  leaseDurationMs?: number;
  /** How long a graceful stop waits for verdicts and events still going out. */
  shutdownGraceMs?: number;
  /** Read the failing container's log tail for requests with `logs` (needs `get` on pods/log). */
  containerLogs?: boolean;
}

export interface RunningService {
  readonly metricsUrl: string;
  readonly engine: ObservationEngine;
  /** Resolves when NATS closes for good (the service cannot work without it). */
  readonly closed: Promise<unknown>;
  stop(): Promise<void>;
}

function streamMetricsOf(metrics: Metrics): StreamMetrics {
  return {
    watchEvent: (kind, type) => metrics.watchEventsTotal.inc({ kind, type }),
    watchRestart: (kind, cause) => metrics.watchRestartsTotal.inc({ kind, cause }),
    objects: (kind, count) => metrics.informerObjects.set({ kind }, count),
  };
}

function busMetricsOf(metrics: Metrics): BusMetrics {
  return {
    requestAnswered: (result) => metrics.requestsTotal.inc({ result }),
    publishFailed: () => metrics.natsPublishFailuresTotal.inc(),
    eventsBuffered: (count) => metrics.eventsBuffered.set(count),
  };
}

function leaseMetricsOf(metrics: Metrics): LeaseMetrics {
  return {
    leasesHeld: (count) => metrics.leasesHeld.set(count),
    leaseRenewalFailed: () => metrics.leaseRenewalsFailedTotal.inc(),
    observationAdopted: (cause) => metrics.observationsAdoptedTotal.inc({ cause }),
  };
}

function engineMetricsOf(metrics: Metrics): EngineMetrics {
  return {
    observationStarted: () => metrics.observationsActive.inc(),
    stageReached: (stage, deployment, seconds) => metrics.stageReachedSeconds.observe({ stage, deployment }, seconds),
    observationDecided: (required, outcome, seconds) => {
      metrics.observationsActive.dec();
      metrics.observationsTotal.inc({ required, outcome });
      metrics.verdictSeconds.observe({ required, outcome }, seconds);
    },
    resourceFailed: (kind, reason) => metrics.failuresTotal.inc({ kind, reason }),
    eventToVerdict: (seconds) => metrics.eventToVerdictSeconds.observe(seconds),
    observationLeft: () => metrics.observationsActive.dec(),
  };
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  const { logger } = config;
  const metrics = createMetrics();
  const kubeConfig = config.kubeConfig ?? defaultKubeConfig();
  const hub = new InformerHub({
    transport: kubeHttpTransport(kubeConfig),
    ...(config.namespaces && { namespaces: config.namespaces }),
    keptFieldsOf: (kindKey) => cachedFieldsOf(kindKey, config.healthChecks),
    metrics: streamMetricsOf(metrics),
    logger: logger.child({ component: "streams" }),
  });

  let connection: NatsConnection | undefined;
  let operations: OperationsServer | undefined;
  try {
    logger.info({ nats: describeNatsConfig(config.nats), cluster: kubeConfig.getCurrentCluster()?.server }, "starting");
    const servers = config.nats.servers.join(", ");
    connection = await connect({ ...toConnectionOptions(config.nats), name: config.nats.name ?? "stagewatch" }).catch((cause: unknown) => {
      throw new ServiceStartError(`cannot connect to NATS at ${servers}: ${(cause as Error).message}`, { cause });
    });
    const names = busNames(config.subjectPrefix);
    const replicas = config.jetstreamReplicas ?? 1;
    const jsm = await jetstreamManager(connection);
    await ensureEventStream(jsm, names, { replicas });
    const js = jetstream(connection);
    const busLogger = logger.child({ component: "bus" });
    const busMetrics = busMetricsOf(metrics);
    const records = await openObservationRecords(js, { prefix: config.subjectPrefix, replicas });
    const leaseStore = await openLeaseStore(js, { prefix: config.subjectPrefix, replicas });
    const events = createEventPublisher({ js, jsm, prefix: config.subjectPrefix, metrics: busMetrics, logger: busLogger });
    const engineLogger = logger.child({ component: "engine" });
    const timing = leaseTimingFor(config.leaseDurationMs ?? 15_000);
    const leaseMetrics = leaseMetricsOf(metrics);
    const leases = new LeaseKeeper({
      store: leaseStore,
      replicaId: config.replicaId,
      timing,
      scheduler: asyncScheduler,
      metrics: leaseMetrics,
      logger: engineLogger,
    });
    const engine = new ObservationEngine({
      kinds: hub,
      events,
      records,
      leases,
      ...(config.healthChecks && { healthChecks: config.healthChecks }),
      ...(config.warningEvents !== false && { warnings: hub.warnings() }),
      ...(config.containerLogs && { podLogs: kubePodLogReader(kubeConfig) }),
      metrics: engineMetricsOf(metrics),
      logger: engineLogger,
    });
    const adopter = new Adopter({ store: leaseStore, keeper: leases, engine, timing, scheduler: asyncScheduler, metrics: leaseMetrics, logger: engineLogger });
    leases.startHeartbeat();
    // Adoption starts before requests are taken: what a crashed replica left is taken up first.
    await adopter.start();
    const requests = startRequestServer({ connection, service: engine, prefix: config.subjectPrefix, metrics: busMetrics, logger: busLogger });
    let natsConnected = true;
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === "disconnect") natsConnected = false;
        else if (status.type === "reconnect") {
          natsConnected = true;
          // Renew at once: a lease that ran out during the outage is settled by the compare-and-swap now, not in 5 s.
          void leases.renewAll();
        }
      }
    })();
    const nats = connection;
    operations = await startOperationsServer({
      host: config.metricsHost,
      port: config.metricsPort,
      registry: metrics.registry,
      readiness: {
        notReadyBecause: () => {
          if (nats.isClosed()) return "NATS connection closed";
          if (!natsConnected) return "NATS disconnected; reconnecting";
          if (!hub.hasSynced()) return "informer caches not synced yet";
          return undefined;
        },
      },
    });
    logger.info({ metrics: operations.url, subjects: names.prefix, namespaces: config.namespaces ?? "all", replica: config.replicaId, jetstreamReplicas: replicas, containerLogs: config.containerLogs === true }, "serving");
    const ops = operations;
    return {
      metricsUrl: ops.url,
      engine,
      closed: nats.closed(),
      // Graceful hand-over (SIGTERM): no new requests, no new adoptions, verdicts already decided
      // stored and published, every lease handed back so other replicas adopt at once, then the
      // events still waiting are flushed. Bounded by the grace: what is not out by then is left to
      // the records and the leases, which the next owner repairs from.
      stop: async () => {
        const graceMs = config.shutdownGraceMs ?? 20_000;
        await requests.stop();
        adopter.stop();
        await withinMs(engine.handOver(), graceMs);
        leases.stopHeartbeat();
        engine.stop();
        await withinMs(events.flush(), Math.max(1_000, graceMs / 4));
        hub.stop();
        await nats.drain().catch(() => undefined);
        await ops.close();
      },
    };
  } catch (error) {
    hub.stop();
    await operations?.close();
    await connection?.close().catch(() => undefined);
    throw error;
  }
}

async function withinMs(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function defaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromDefault();
  } catch (cause) {
    throw new ServiceStartError(`cannot load the kubeconfig (${process.env.KUBECONFIG ?? "in-cluster"}): ${(cause as Error).message}`, { cause });
  }
  return kubeConfig;
}

// `stagewatch serve`: wires the cluster (informers), the engine and the bus together, with
// metrics, health endpoints and logs. Everything that decides lives elsewhere; this file only
// connects, and stops what it started in the reverse order.
import { KubeConfig } from "@kubernetes/client-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import {
  busNames,
  createEventPublisher,
  describeNatsConfig,
  ensureEventStream,
  openObservationRecords,
  startRequestServer,
  toConnectionOptions,
  type BusMetrics,
  type NatsConnectionConfig,
} from "../bus/index.js";
import { ObservationEngine, type EngineMetrics } from "../observations/index.js";
import { InformerHub, kubeHttpTransport, type StreamMetrics } from "../streams/index.js";
import type { Rule } from "../verdicts/index.js";
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
  /** CEL health checks of custom kinds, compiled (compileHealthChecks): their status is cached whole. */
  healthChecks?: ReadonlyMap<string, Rule>;
  logger: Logger;
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
  };
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  const { logger } = config;
  const metrics = createMetrics();
  const kubeConfig = config.kubeConfig ?? defaultKubeConfig();
  const hub = new InformerHub({
    transport: kubeHttpTransport(kubeConfig),
    ...(config.namespaces && { namespaces: config.namespaces }),
    ...(config.healthChecks && { wholeStatusKinds: [...config.healthChecks.keys()] }),
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
    await ensureEventStream(await jetstreamManager(connection), names);
    const js = jetstream(connection);
    const busLogger = logger.child({ component: "bus" });
    const busMetrics = busMetricsOf(metrics);
    const records = await openObservationRecords(js, { prefix: config.subjectPrefix });
    const events = createEventPublisher({ js, prefix: config.subjectPrefix, metrics: busMetrics, logger: busLogger });
    const engine = new ObservationEngine({
      kinds: hub,
      events,
      records,
      ...(config.healthChecks && { healthChecks: config.healthChecks }),
      metrics: engineMetricsOf(metrics),
      logger: logger.child({ component: "engine" }),
    });
    const requests = startRequestServer({ connection, service: engine, prefix: config.subjectPrefix, metrics: busMetrics, logger: busLogger });
    const nats = connection;
    operations = await startOperationsServer({
      host: config.metricsHost,
      port: config.metricsPort,
      registry: metrics.registry,
      readiness: {
        notReadyBecause: () => {
          if (nats.isClosed()) return "NATS connection closed";
          if (!hub.hasSynced()) return "informer caches not synced yet";
          return undefined;
        },
      },
    });
    logger.info({ metrics: operations.url, subjects: names.prefix, namespaces: config.namespaces ?? "all" }, "serving");
    const ops = operations;
    return {
      metricsUrl: ops.url,
      engine,
      closed: nats.closed(),
      stop: async () => {
        await requests.stop();
        engine.stop();
        await events.flush();
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

function defaultKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  try {
    kubeConfig.loadFromDefault();
  } catch (cause) {
    throw new ServiceStartError(`cannot load the kubeconfig (${process.env.KUBECONFIG ?? "in-cluster"}): ${(cause as Error).message}`, { cause });
  }
  return kubeConfig;
}

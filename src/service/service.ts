// `stagewatch serve`: wires the cluster (informers), the engine and the bus together, with
// metrics, health endpoints and logs. Everything that decides lives elsewhere; this file only
// connects, and stops what it started in the reverse order.
import { prometheusChecks } from "../prometheus/index.js";
import { KubeConfig } from "@kubernetes/client-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { asyncScheduler } from "rxjs";
import {
  busNames,
  createEventPublisher,
  describeNatsConfig,
  ensureEventStream,
  eventBufferLimitsFor,
  planEventStreams,
  listVisible,
  openDeploymentHistories,
  openLeaseStore,
  openObservationRecords,
  requestKinds,
  startKeysResponder,
  startRequestServer,
  toConnectionOptions,
} from "../bus/index.js";
import {
  Adopter,
  defaultMaxPayloadBytes,
  LeaseKeeper,
  ObservationEngine,
  leaseTimingFor,
} from "../observations/index.js";
import { serviceSigner, unsignedService } from "../signing/index.js";
import { InformerHub, kubeHttpTransport, kubePodLogReader } from "../streams/index.js";
import { cachedFieldsOf } from "../verdicts/index.js";
import { startOperationsServer, type OperationsServer } from "./httpServer.js";
import { OtlpTraceSink } from "../tracing/index.js";
import { busMetricsOf, createMetrics, engineMetricsOf, leaseMetricsOf, streamMetricsOf, traceMetricsOf } from "./metrics.js";
import { JetStreamNotReadyError, untilJetStreamReady } from "./jetStreamStartup.js";
import { callerQuotasOf, serviceSettings, type ServiceConfig } from "./settings.js";

/** A dependency the service cannot start without (NATS, the kubeconfig) is missing: exit 3, not a stack. */
export class ServiceStartError extends Error {
  override name = "ServiceStartError";
}

export interface RunningService {
  readonly metricsUrl: string;
  readonly engine: ObservationEngine;
  /** Resolves when NATS closes for good (the service cannot work without it). */
  readonly closed: Promise<unknown>;
  stop(): Promise<void>;
}

export async function startService(given: ServiceConfig): Promise<RunningService> {
  const config = serviceSettings(given);
  const { logger } = config;
  const tenants = config.tenants === undefined ? [] : [...config.tenants.keys()];
  const metrics = createMetrics(undefined, { maxDeploymentLabels: config.maxDeploymentLabels, tenants });
  const kubeConfig = config.kubeConfig ?? defaultKubeConfig();
  const hub = new InformerHub({
    transport: kubeHttpTransport(kubeConfig),
    ...(config.namespaces && { namespaces: config.namespaces }),
    ...(config.secretNamespaces && { secretNamespaces: config.secretNamespaces }),
    keptFieldsOf: (kindKey) => cachedFieldsOf(kindKey, config.healthChecks),
    metrics: streamMetricsOf(metrics),
    logger: logger.child({ component: "streams" }),
  });

  let connection: NatsConnection | undefined;
  let operations: OperationsServer | undefined;
  let traces: OtlpTraceSink | undefined;
  try {
    logger.info({ nats: describeNatsConfig(config.nats), cluster: kubeConfig.getCurrentCluster()?.server }, "starting");
    const servers = config.nats.servers.join(", ");
    connection = await connect({
      ...toConnectionOptions(config.nats),
      name: config.nats.name ?? "stagewatch",
      // nats.js builds an Error (with its stack) ahead of every request and every timed request, to
      // point a failure at its caller: the service makes a KV write or stream publish per change,
      // and those Errors cost a fifth of its CPU under load (bench/results/cluster-profile-*.json).
      // A failure still says what failed; only the caller's frames are gone.
      noAsyncTraces: true,
    }).catch((cause: unknown) => {
      throw new ServiceStartError(`cannot connect to NATS at ${servers}: ${(cause as Error).message}`, { cause });
    });
    const names = busNames(config.subjectPrefix);
    const replicas = config.jetstreamReplicas;
    // What the server takes in one message (its INFO): records and events are fitted to it.
    const maxPayloadBytes = connection.info?.max_payload ?? defaultMaxPayloadBytes;
    const nats = connection;
    const retry = { withinMs: config.jetstreamWaitMs };
    const ready = <T>(what: string, attempt: () => Promise<T>) =>
      untilJetStreamReady(what, attempt, retry, logger).catch((error: unknown) => {
        throw error instanceof JetStreamNotReadyError ? new ServiceStartError(`NATS at ${servers}: ${error.message}`, { cause: error }) : error;
      });
    const jsm = await ready("JetStream API", () => jetstreamManager(nats));
    // With tenants, a stream each (eventStream.ts): one tenant's events never evict another's.
    const streamOptions = { replicas, maxBytes: config.eventStreamMaxBytes, maxMessageBytes: maxPayloadBytes, maxEventsPerObservation: config.maxEventsPerObservation, tenants };
    try {
      // Shares too small for one event are a setting to change, not something to wait out.
      planEventStreams(names, streamOptions, []);
    } catch (error) {
      throw new ServiceStartError(`NATS at ${servers}: ${(error as Error).message}`, { cause: error });
    }
    const eventStreams = await ready(`event stream ${names.eventStream}`, () => ensureEventStream(jsm, names, streamOptions));
    if (eventStreams.otherTenantStreams.length > 0) {
      logger.warn({ streams: eventStreams.otherTenantStreams }, "event streams of tenants not in the tenants file are left as they are; delete them to free their storage once their events no longer matter");
    }
    const js = jetstream(connection);
    const busLogger = logger.child({ component: "bus" });
    const busMetrics = busMetricsOf(metrics);
    const bucket = { prefix: config.subjectPrefix, replicas, maxValueBytes: maxPayloadBytes };
    const records = await ready(`bucket ${names.recordsBucket}`, () => openObservationRecords(js, { ...bucket, maxBytes: config.recordsMaxBytes }));
    const leaseStore = await ready(`bucket ${names.leasesBucket}`, () => openLeaseStore(js, { ...bucket, maxBytes: config.leasesMaxBytes }));
    const history = await ready(`bucket ${names.historyBucket}`, () => openDeploymentHistories(js, bucket));
    traces = config.traces.enabled
      ? new OtlpTraceSink({ settings: config.traces.settings, logger: logger.child({ component: "tracing" }), metrics: traceMetricsOf(metrics), resource: { "service.instance.id": config.replicaId } })
      : undefined;
    const signer = config.signingKey ? serviceSigner(config.signingKey, config.trustedKeys, config.clusterName) : unsignedService;
    if (signer.publicKey === undefined) logger.warn({ subjects: names.allEvents }, "verdicts are not signed (no signing key): anyone who may publish on the events subjects can forge one");
    // Verdict notices go out on the same connection, straight to clients already waiting.
    const publisher = connection;
    const events = createEventPublisher({
      js,
      jsm,
      notify: (subject, body) => publisher.publish(subject, body),
      prefix: config.subjectPrefix,
      signer,
      // Each tenant an equal share of what waits while NATS is away.
      buffer: eventBufferLimitsFor(tenants.length),
      metrics: busMetrics,
      logger: busLogger,
    });
    const engineLogger = logger.child({ component: "engine" });
    const timing = leaseTimingFor(config.leaseDurationMs);
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
      ...(config.warningEvents && { warnings: hub.warnings() }),
      ...(config.containerLogs && { podLogs: kubePodLogReader(kubeConfig) }),
      ...(config.failOn && { failOn: config.failOn }),
      ...(config.analyses && { analyses: prometheusChecks(config.analyses.templates, config.analyses.prometheus) }),
      signer,
      maxPayloadBytes,
      maxLogReads: config.maxLogReads,
      admissionLimits: { inFlight: config.maxInFlight, inFlightPerCaller: config.maxInFlightPerCaller, replicas: config.replicas },
      history,
      ...(traces && { traces }),
      metrics: engineMetricsOf(metrics),
      logger: engineLogger,
    });
    const adopter = new Adopter({ store: leaseStore, keeper: leases, engine, timing, scheduler: asyncScheduler, metrics: leaseMetrics, logger: engineLogger });
    // The heartbeat is stored before adoption starts (the adopter takes nothing without it).
    await leases.startHeartbeat();
    // Adoption starts before requests are taken: what a crashed replica left is taken up first.
    await adopter.start();
    if (config.tenants === undefined) {
      logger.warn({ subjects: [names.observe, names.get, names.cancel, names.list] }, "no tenants file: every caller may observe any namespace, and get, list and cancel every observation");
    } else {
      logger.info({ tenants: [...config.tenants.keys()], subjects: requestKinds.map((kind) => names.anyTenantRequest(kind)) }, "tenants file loaded: requests are taken from NATS accounts through their service imports only");
    }
    const requests = startRequestServer({
      connection,
      service: engine,
      prefix: config.subjectPrefix,
      ...(config.tenants && { tenants: config.tenants }),
      // From the lease table the adopter's watch keeps: no consumer, no lease read per list.
      inProgress: (scope) => listVisible(adopter.table, records, { ...scope, nowMs: Date.now() }),
      quotas: callerQuotasOf(config),
      replicas: config.replicas,
      metrics: busMetrics,
      logger: busLogger,
    });
    const keysAnswers = startKeysResponder({ connection, prefix: config.subjectPrefix, keys: signer.verifyKeys, tenants: config.tenants !== undefined, logger: busLogger });
    let natsConnected = true;
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === "disconnect") natsConnected = false;
        else if (status.type === "reconnect") {
          natsConnected = true;
          // The heartbeat at once: a lapse near after the outage is put off now, not at the next interval.
          void leases.beatNow();
        }
      }
    })();
    operations = await startOperationsServer({
      host: config.metricsHost,
      port: config.metricsPort,
      registry: metrics.registry,
      openMetrics: metrics.openMetrics,
      readiness: {
        notReadyBecause: () => {
          if (nats.isClosed()) return "NATS connection closed";
          if (!natsConnected) return "NATS disconnected; reconnecting";
          if (!hub.hasSynced()) return "informer caches not synced yet";
          return undefined;
        },
      },
    });
    logger.info({ metrics: operations.url, traces: config.traces.enabled ? config.traces.settings.url : `off (${config.traces.because})`, subjects: names.prefix, namespaces: config.namespaces ?? "all", replica: config.replicaId, jetstreamReplicas: replicas, containerLogs: config.containerLogs, signingKey: signer.publicKey, alsoTrusted: config.trustedKeys?.map((key) => key.publicKey) }, "serving");
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
        const graceMs = config.shutdownGraceMs;
        await Promise.all([requests.stop(), keysAnswers.stop()]);
        adopter.stop();
        await withinMs(engine.handOver(), graceMs);
        leases.stopHeartbeat();
        engine.stop();
        await withinMs(events.flush(), Math.max(1_000, graceMs / 4));
        await withinMs(traces?.shutdown() ?? Promise.resolve(), Math.max(1_000, graceMs / 4));
        hub.stop();
        await nats.drain().catch(() => undefined);
        await ops.close();
      },
    };
  } catch (error) {
    hub.stop();
    await traces?.shutdown();
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

/**
 * stagewatch as the observe e2e tests run it: the real service (`startService`, what `stagewatch
 * serve` runs) in the test process, against the cluster and NATS server under test, and a client
 * that talks to it only through NATS, as an apply tool would.
 *
 * Each call uses a subject prefix of its own; the event stream and the records bucket derive
 * their names from it, so test files never read each other's events or idempotency keys, and
 * `stop()` deletes both.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { pino } from "pino";
import { busNames, connectObserver, type BusNames, type Observer, type ObservationRun } from "../../../src/bus/index.js";
import { startService, type RunningService } from "../../../src/service/service.js";
import type { ServiceConfig } from "../../../src/service/settings.js";
import type { ObservationEvent, ObservationRequestInput, ObservationVerdict, ResourceVerdict } from "../../../src/verdicts/contract/schemas.js";
import { compileHealthChecks, type HealthCheck } from "../../../src/verdicts/index.js";
import { afterAll, beforeAll } from "vitest";
import { createNamespace, deleteNamespace, kubeConfig as sharedKubeConfig, natsUrl as sharedNatsUrl } from "./cluster.js";
import type { Manifest } from "./manifests.js";
import { busStreams } from "./bus.ts";

const logDir = fileURLToPath(new URL("../../../.stagewatch/e2e/logs/", import.meta.url));

export interface StagewatchUnderTest {
  readonly prefix: string;
  readonly names: BusNames;
  readonly service: RunningService;
  /** A client on a connection of its own. */
  readonly observer: Observer;
  /** The service's JSON log (kept after the run: the first place to look when a test fails). */
  readonly logFile: string;
  /** Another client with its own connection, e.g. a second process following an observation. */
  connectObserver(): Promise<Observer>;
  /** A request with raw bytes, past the client's own validation, as a client in another language sends it. */
  rawRequest(subject: string, body: string | Uint8Array): Promise<unknown>;
  /** One sample of a metric from `/metrics`, summed over the series whose labels include `labels`. */
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
}

export interface StagewatchOptions {
  /** Names the prefix and the log file, e.g. the test file's theme. */
  name: string;
  /** Default: the cluster of the e2e global setup. */
  kubeConfig?: KubeConfig;
  /** Default: the NATS server of the e2e global setup. */
  natsUrl?: string;
  /** CEL health checks of custom kinds, as `serve --health-checks` reads them. */
  healthChecks?: readonly HealthCheck[];
  /** `serve --container-logs`: read the failing container's log tail for requests with `logs`. */
  containerLogs?: boolean;
  /** `serve --analyses` and `--prometheus-url`: the verified stage's metric checks and where they are measured. */
  analyses?: ServiceConfig["analyses"];
}

/** What a file observing in a namespace of its own works with. */
export interface ObservingFile {
  readonly stagewatch: StagewatchUnderTest;
  readonly namespace: string;
}

/**
 * The in-process service `observe-<name>` files share their shape on: started with a namespace of
 * the file's own before its tests (`started` hands both over), stopped and deleted after them.
 */
export function observeInOwnNamespace(name: string, started: (file: ObservingFile) => void): void {
  let file: ObservingFile | undefined;
  beforeAll(async () => {
    const [stagewatch, namespace] = await Promise.all([startStagewatch({ name }), createNamespace(`observe-${name}`)]);
    file = { stagewatch, namespace };
    started(file);
  });
  afterAll(async () => {
    await file?.stagewatch.stop();
    if (file) await deleteNamespace(file.namespace);
  });
}

export async function startStagewatch(options: StagewatchOptions): Promise<StagewatchUnderTest> {
  const prefix = `sw${options.name.replace(/[^a-z0-9]/g, "")}${randomBytes(4).toString("hex")}`;
  const names = busNames(prefix);
  const natsUrl = options.natsUrl ?? sharedNatsUrl();
  const logFile = join(logDir, `${prefix}.log`);
  const destination = pino.destination({ dest: logFile, mkdir: true, sync: false });
  const service = await startService({
    kubeConfig: options.kubeConfig ?? sharedKubeConfig(),
    nats: { servers: [natsUrl], connectTimeoutMs: 5000 },
    metricsHost: "127.0.0.1",
    metricsPort: 0,
    subjectPrefix: prefix,
    ...(options.healthChecks && { healthChecks: compileHealthChecks(options.healthChecks) }),
    ...(options.containerLogs && { containerLogs: true }),
    ...(options.analyses && { analyses: options.analyses }),
    logger: pino({ level: "debug" }, destination),
    replicaId: `e2e-${prefix}`,
  });
  let observer: Observer | undefined;
  let raw: NatsConnection | undefined;
  const others: Observer[] = [];
  try {
    observer = await connectObserver({ servers: natsUrl, prefix });
    raw = await connect({ servers: natsUrl });
  } catch (error) {
    await observer?.close();
    await service.stop();
    throw error;
  }
  const rawConnection = raw;
  return {
    prefix,
    names,
    service,
    observer,
    logFile,
    async connectObserver() {
      const other = await connectObserver({ servers: natsUrl, prefix });
      others.push(other);
      return other;
    },
    async rawRequest(subject, body) {
      return (await rawConnection.request(subject, body, { timeout: 10_000 })).json();
    },
    async metric(name, labels = {}) {
      const text = await (await fetch(`${service.metricsUrl}/metrics`)).text();
      return sumSamples(text, name, labels);
    },
    async stop() {
      await Promise.all([observer, ...others].map((o) => o?.close()));
      await service.stop();
      const jsm = await jetstreamManager(rawConnection);
      for (const stream of busStreams(names)) await jsm.streams.delete(stream).catch(() => false);
      await rawConnection.close();
      destination.flushSync();
    },
  };
}

/** Sums `name{...}` samples of the Prometheus text format whose labels include every one of `labels`. */
export function sumSamples(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const series = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => series[key] === value)) sum += Number(match[3]);
  }
  return sum;
}

/** What an apply tool does: server-side apply of every object, in order, as field manager `e2e`. */
export async function apply(kubeConfig: KubeConfig, ...objects: Manifest[]): Promise<KubernetesObject[]> {
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const applied: KubernetesObject[] = [];
  for (const object of objects) {
    applied.push(await client.patch(object, undefined, undefined, "e2e", true, PatchStrategy.ServerSideApply));
  }
  return applied;
}

/** A request with the fields every test sets the same way; `overrides` names the rest. */
export function observeRequest(
  overrides: Pick<ObservationRequestInput, "deployment" | "resources"> & Partial<ObservationRequestInput>,
): ObservationRequestInput {
  return {
    key: `e2e-${randomBytes(6).toString("hex")}/${overrides.deployment}`,
    require: "healthy",
    timeoutSeconds: 300,
    ...overrides,
  };
}

/** Every event of a run, up to and including its verdict. */
export async function collect(run: Pick<ObservationRun, "progress" | "verdict">): Promise<{ events: ObservationEvent[]; verdict: ObservationVerdict }> {
  const events: ObservationEvent[] = [];
  for await (const event of run.progress) events.push(event);
  return { events, verdict: await run.verdict };
}

/** Reads events up to the first progress event whose reading matches; throws if the verdict comes first. */
export async function nextReading(
  events: AsyncIterator<ObservationEvent>,
  matches: (reading: ResourceVerdict) => boolean = () => true,
): Promise<ResourceVerdict> {
  for (;;) {
    const next = await events.next();
    if (next.done || next.value.type === "verdict") throw new Error("the observation ended before the reading looked for");
    if (next.value.type === "progress" && matches(next.value.resource)) return next.value.resource;
  }
}

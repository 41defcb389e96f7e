/**
 * Jaeger all-in-one (v1.76.0, the OpenTelemetry-collector-based binary) as the trace backend the
 * tracing e2e test exports to and reads back from: an OTLP/HTTP receiver, in-memory storage and
 * the query API, each on a loopback port of its own (freePorts), nothing else listening (no
 * gRPC, Zipkin or sampling ports, no internal metrics port), so several runs share the machine.
 * Built once per machine by `build.sh jaeger`; the process is killed if the test process exits first.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildOrReuseTool } from "./binaries.ts";
import { freePorts, http, waitFor } from "./probes.ts";
import { logTail } from "./processes.ts";
import { startLogged, type RunningProcess } from "./stagewatch.ts";

/** Runs `build.sh jaeger` (progress on this process's stderr) and returns the binary's path. */
export function buildOrReuseJaeger(): string {
  return buildOrReuseTool("jaeger");
}

export interface Jaeger {
  /** What OTEL_EXPORTER_OTLP_ENDPOINT takes (OTLP/HTTP). */
  readonly otlpEndpoint: string;
  readonly queryUrl: string;
  /** The trace as the query API returns it (`/api/traces/<id>`), undefined while it has none. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  stop(): Promise<void>;
}

/** The query API's trace JSON, the fields the tests read. */
export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: JaegerTag[] }>;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: JaegerTag[];
  logs: { timestamp: number; fields: JaegerTag[] }[];
  processID: string;
}

export interface JaegerTag {
  key: string;
  type: string;
  value: string | number | boolean;
}

function config(ports: { otlp: number; query: number; queryGrpc: number; health: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: none
    logs:
      level: info
extensions:
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${ports.health}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

export async function startJaeger(dir: string, binary = buildOrReuseJaeger()): Promise<Jaeger> {
  mkdirSync(dir, { recursive: true });
  const [otlp, query, queryGrpc, health] = await freePorts(4);
  const configFile = join(dir, "jaeger.yaml");
  writeFileSync(configFile, config({ otlp: otlp!, query: query!, queryGrpc: queryGrpc!, health: health! }));
  const started: RunningProcess = startLogged(binary, ["--config", configFile], { cwd: dir, env: { PATH: process.env.PATH }, logFile: join(dir, "jaeger.log") });
  const queryUrl = `http://127.0.0.1:${query}`;
  try {
    await waitFor("jaeger", async () => (await http(`http://127.0.0.1:${health}/status`)).status === 200 && (await http(`${queryUrl}/api/services`)).status === 200, {
      timeoutMs: 60_000,
      abort: () => (started.exited() ? `exited:\n${logTail(started.logFile)}` : undefined),
    });
  } catch (error) {
    await started.stop();
    throw error;
  }
  return {
    otlpEndpoint: `http://127.0.0.1:${otlp}`,
    queryUrl,
    async trace(traceId) {
      const response = await http(`${queryUrl}/api/traces/${traceId}`);
      if (response.status === 404) return undefined;
      if (response.status !== 200) throw new Error(`jaeger /api/traces/${traceId}: ${response.status} ${response.body}`);
      const { data } = JSON.parse(response.body) as { data: JaegerTrace[] };
      return data[0];
    },
    async stop() {
      await started.stop(5_000);
    },
  };
}

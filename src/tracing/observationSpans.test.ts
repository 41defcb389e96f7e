import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { ExportResultCode } from "@opentelemetry/core";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logging/index.js";
import { ObservationRequest, type DecidedObservation, type ObservationVerdict } from "../verdicts/index.js";
import { observationSpans } from "./observationSpans.js";
import { OtlpTraceSink } from "./otlpTraceSink.js";
import { spanIdOf, traceIdOf } from "./traceIds.js";
import { traceExportFromEnv } from "./traceSettings.js";

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const t0 = Date.parse("2026-12-01T10:00:00.000Z");
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();

const request = ObservationRequest.parse({
  key: "ci-1/payments",
  deployment: "payments",
  require: "healthy",
  timeoutSeconds: 300,
  defaultNamespace: "payments",
  traceparent: parent,
  resources: [
    { apiVersion: "batch/v1", kind: "Job", name: "migrate", bootstrap: true },
    { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
  ],
});

const job = { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "migrate", bootstrap: true };
const api = { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" };

function decided(overrides: Partial<ObservationVerdict> = {}, timeline?: DecidedObservation["timeline"]): DecidedObservation {
  const verdict: ObservationVerdict = {
    observationId: "obs-1",
    key: "ci-1/payments",
    deployment: "payments",
    required: "healthy",
    reached: "healthy",
    outcome: "succeeded",
    resources: [
      { identity: job, state: "settled", message: "1/1 completions" },
      {
        identity: api,
        state: "settled",
        message: "2/2 replicas ready",
        warning: { kind: "Pod", name: "api-7f9c-x2", reason: "BackOff", message: "Back-off pulling image", count: 2, lastSeen: at(20) },
      },
    ],
    message: "deployment payments reached healthy",
    startedAt: at(0),
    deadline: at(300),
    decidedAt: at(40),
    ...overrides,
  };
  return {
    request,
    verdict,
    timeline: timeline ?? {
      stages: { applied: t0 + 1_000, bootstrapped: t0 + 12_000, healthy: t0 + 40_000 },
      resources: { "batch/Job/payments/migrate": t0 + 12_000, "apps/Deployment/payments/api": t0 + 40_000 },
      notices: [{ type: "adopted", atMs: t0 + 25_000, message: "adopted by replica-b from replica-a (expired)" }],
    },
  };
}

describe("an observation's spans", () => {
  it("one observation span under the caller's parent, one a stage reached, one a resource, from the record's times", () => {
    const spans = observationSpans(decided());
    expect(spans.map((s) => s.name)).toEqual(["observe payments", "stage applied", "stage bootstrapped", "stage healthy", "Job payments/migrate", "Deployment payments/api"]);
    const [root, applied, bootstrapped, healthy, migrate, deployment] = spans;
    expect(root).toMatchObject({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentSpanId: "00f067aa0ba902b7", startMs: t0, endMs: t0 + 40_000, status: { code: "ok" } });
    expect(root!.attributes).toMatchObject({ "k8s.namespace.name": "payments", "stagewatch.outcome": "succeeded", "stagewatch.adoptions": 1 });
    expect(root!.events).toEqual([{ name: "adopted", atMs: t0 + 25_000, attributes: { message: "adopted by replica-b from replica-a (expired)" } }]);
    for (const child of spans.slice(1)) expect(child.parentSpanId).toBe(root!.spanId);
    expect([applied!.startMs, applied!.endMs, bootstrapped!.startMs, bootstrapped!.endMs, healthy!.endMs]).toEqual([t0, t0 + 1_000, t0 + 1_000, t0 + 12_000, t0 + 40_000]);
    expect(migrate).toMatchObject({ endMs: t0 + 12_000, attributes: { "k8s.job.name": "migrate", "k8s.namespace.name": "payments" } });
    expect(deployment!.attributes["k8s.deployment.name"]).toBe("api");
    expect(deployment!.events).toEqual([
      { name: "Warning BackOff", atMs: t0 + 20_000, attributes: expect.objectContaining({ "k8s.event.reason": "BackOff", "k8s.pod.name": "api-7f9c-x2" }) },
    ]);
  });

  it("the stage it failed at ends in error with the cluster's reason, and the failure is an event", () => {
    const failure = { stage: "bootstrapped" as const, resource: job, reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit" };
    const spans = observationSpans(
      decided(
        { outcome: "failed", reached: "applied", failure, resources: [{ identity: job, state: "failed", reason: "BackoffLimitExceeded", message: failure.message }, { identity: api, state: "pending", message: "0/2 replicas ready" }] },
        { stages: { applied: t0 + 1_000 }, resources: { "batch/Job/payments/migrate": t0 + 30_000 }, notices: [] },
      ),
    );
    expect(spans.map((s) => [s.name, s.status.code])).toEqual([
      ["observe payments", "error"],
      ["stage applied", "ok"],
      ["stage bootstrapped", "error"],
      ["Job payments/migrate", "error"],
      ["Deployment payments/api", "unset"],
    ]);
    expect(spans[2]!.status.message).toBe("BackoffLimitExceeded: Job has reached the specified backoff limit");
    expect(spans[0]!.events.map((e) => e.name)).toEqual(["failure"]);
    // Still pending at the decision: its span ends there.
    expect(spans[4]!.endMs).toBe(t0 + 40_000);
  });

  it("a child never ends after the observation (the driver's clock may read a millisecond past the decision)", () => {
    const spans = observationSpans(decided({}, { stages: { applied: t0 + 1_000, bootstrapped: t0 + 1_000, healthy: t0 + 40_001 }, resources: { "apps/Deployment/payments/api": t0 + 40_001 }, notices: [] }));
    for (const span of spans) expect(span.endMs).toBeLessThanOrEqual(t0 + 40_000);
  });

  it("ids come from the record alone: the same on every replica; without a caller's trace, one of the observation's own", () => {
    expect(observationSpans(decided())).toEqual(observationSpans(decided()));
    const own = { ...decided(), request: { ...request, traceparent: undefined } };
    const [root] = observationSpans(own);
    expect(root!.traceId).toBe(traceIdOf({}, "obs-1"));
    expect(root!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root!.parentSpanId).toBeUndefined();
    expect(root!.spanId).toBe(spanIdOf("obs-1", "observe payments"));
  });
});

describe("the OTLP sink", () => {
  const settings = { url: "http://127.0.0.1:1/v1/traces", batch: { scheduledDelayMillis: 1 } };

  /** Keeps what it was given past shutdown (the SDK's in-memory exporter forgets it then). */
  const keeping = () => {
    const spans: ReadableSpan[] = [];
    const exporter: SpanExporter = { export: (batch, done) => (spans.push(...batch), done({ code: ExportResultCode.SUCCESS })), shutdown: async () => {} };
    return { spans, exporter };
  };

  it("hands every span to the exporter, as OpenTelemetry spans", async () => {
    const { spans, exporter } = keeping();
    const sink = new OtlpTraceSink({ settings, logger: silentLogger, exporter });
    sink.export(decided());
    await sink.shutdown();
    expect(spans.map((s) => s.name)).toHaveLength(6);
    const root = spans.find((s) => s.name === "observe payments")!;
    expect(root.parentSpanContext?.spanId).toBe("00f067aa0ba902b7");
    expect(root.resource.attributes["service.name"]).toBe("stagewatch");
  });

  it("a collector that refuses costs a count, never an exception, and nothing waits for it", async () => {
    const refusing: SpanExporter = {
      export: (_spans: ReadableSpan[], done) => done({ code: ExportResultCode.FAILED, error: new Error("connect ECONNREFUSED") }),
      shutdown: async () => {},
    };
    let failed = 0;
    const sink = new OtlpTraceSink({ settings, logger: silentLogger, exporter: refusing, metrics: { traceExported: () => {}, spansFailed: (n) => (failed += n) } });
    expect(() => sink.export(decided())).not.toThrow();
    await sink.shutdown();
    expect(failed).toBe(6);
  });

  it("an observation still in progress is not exported", async () => {
    const { spans, exporter } = keeping();
    const sink = new OtlpTraceSink({ settings, logger: silentLogger, exporter });
    sink.export(decided({ outcome: "in_progress" }));
    await sink.shutdown();
    expect(spans).toEqual([]);
  });
});

describe("trace export settings from OTEL_* variables", () => {
  it("is off without an endpoint, and when disabled", () => {
    expect(traceExportFromEnv({})).toMatchObject({ enabled: false });
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toMatchObject({ enabled: false });
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toMatchObject({ enabled: false });
  });

  it("takes the traces endpoint as given, the general one with /v1/traces", () => {
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toMatchObject({ enabled: true, settings: { url: "http://collector:4318/v1/traces" } });
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/otlp/", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://t.example/x" })).toMatchObject({ settings: { url: "https://t.example/x" } });
    expect(traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_BSP_SCHEDULE_DELAY: "200" })).toMatchObject({ settings: { batch: { scheduledDelayMillis: 200 } } });
  });

  it("names the variable it cannot use", () => {
    expect(() => traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318:x" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    expect(() => traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/grpc.*not supported/);
    expect(() => traceExportFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_BSP_MAX_QUEUE_SIZE: "lots" })).toThrow(/OTEL_BSP_MAX_QUEUE_SIZE/);
  });
});

describe("the request's trace context", () => {
  const base = { key: "k", deployment: "d", require: "healthy", timeoutSeconds: 60, resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "n", name: "c" }] };

  it("takes a W3C traceparent and tracestate", () => {
    expect(ObservationRequest.safeParse({ ...base, traceparent: parent, tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE" }).success).toBe(true);
  });

  it.each([
    ["upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"],
    ["another version", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    ["an all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"],
    ["an all-zero parent", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"],
    ["a short id", "00-4bf92f35-00f067aa0ba902b7-01"],
  ])("refuses %s, naming the field", (_, traceparent) => {
    const parsed = ObservationRequest.safeParse({ ...base, traceparent });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["traceparent"]);
  });
});

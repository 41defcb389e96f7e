/**
 * Issue 22, part 1, against a real trace backend: Jaeger all-in-one (in-memory storage, OTLP/HTTP,
 * its own loopback ports, test/cluster/jaeger.ts) receives what compiled `stagewatch serve`
 * processes export, and the trace is read back through Jaeger's query API. An observation started
 * by `stagewatch observe` with TRACEPARENT lands under that parent with its stage and resource
 * spans; an observation whose driver is SIGKILLed and adopted by another replica is still one
 * observation span, with its stages from before the kill.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectObserver } from "../../src/bus/index.js";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.js";
import { startJaeger, type Jaeger, type JaegerSpan, type JaegerTrace } from "../cluster/jaeger.ts";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { configMap, deployment, job } from "./support/manifests.ts";
import { ServeFleet } from "./support/replicas.ts";
import { useServes } from "./support/serve.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const kc = kubeConfig();
const serves = useServes();
let jaeger: Jaeger;
let namespace: string;

/** Export at once, not after the SDK's default 5 s: the test reads the trace back. */
const exportEnv = () => ({ OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, OTEL_BSP_SCHEDULE_DELAY: "200", OTEL_SERVICE_NAME: "stagewatch-e2e" });

beforeAll(async () => {
  [jaeger, namespace] = await Promise.all([startJaeger(scratchDir("jaeger")), createNamespace("tracing")]);
}, 600_000);

afterAll(async () => {
  await jaeger?.stop();
  if (namespace) await deleteNamespace(namespace);
});

const newTraceParent = () => ({ traceId: randomBytes(16).toString("hex"), parentId: randomBytes(8).toString("hex") });

const tag = (span: JaegerSpan, key: string) => span.tags.find((t) => t.key === key)?.value;

/** The trace once Jaeger holds `count` spans of it (a batch may land in two exports). */
function traceWith(traceId: string, count: number): Promise<JaegerTrace> {
  return eventually(`trace ${traceId} with ${count} spans in jaeger`, async () => {
    const trace = await jaeger.trace(traceId);
    return trace && trace.spans.length >= count ? trace : undefined;
  });
}

/** The span tree as the backend returns it: parent span id to children, by operation name. */
function tree(trace: JaegerTrace): string[] {
  const byId = new Map(trace.spans.map((span) => [span.spanID, span]));
  const depth = (span: JaegerSpan): number => {
    const parent = span.references.find((ref) => ref.refType === "CHILD_OF" && byId.has(ref.spanID));
    return parent ? 1 + depth(byId.get(parent.spanID)!) : 0;
  };
  const root = trace.spans.find((span) => depth(span) === 0)!;
  const status = (span: JaegerSpan) => (tag(span, "error") === true ? "error" : (tag(span, "otel.status_code") ?? "unset"));
  return trace.spans
    .toSorted((a, b) => depth(a) - depth(b) || a.startTime - b.startTime || a.operationName.localeCompare(b.operationName))
    .map((span) => `${`${"  ".repeat(depth(span))}${span.operationName}`.padEnd(48)} +${((span.startTime - root.startTime) / 1000).toFixed(0).padStart(5)} ms ${(span.duration / 1000).toFixed(0).padStart(6)} ms  ${String(status(span)).toLowerCase()}${span.logs.length > 0 ? `  events: ${span.logs.map((log) => log.fields.find((f) => f.key === "event")?.value).join(", ")}` : ""}`);
}

describe("an observation with a parent trace", () => {
  it("is exported under the parent: the observation, one span per stage reached, one per resource, Kubernetes attributes", async () => {
    const service = await serves.start({ name: "tracing", env: exportEnv() });
    const plain = job({ namespace, name: "migrate" }).manifest;
    // Labelled, not flagged: what observe reads from a manifest.
    const migrate = { ...plain, metadata: { ...plain.metadata, labels: { ...plain.metadata.labels, "stagewatch.io/bootstrap": "true" } } };
    const api = deployment({ namespace, name: "api", replicas: 2 }).manifest;
    const config = configMap(namespace, "api-config").manifest;
    const file = writeManifest(join(scratchDir("tracing-manifests"), "app.yaml"), [migrate, api, config]);
    await apply(kc, migrate, api, config);
    const { traceId, parentId } = newTraceParent();

    const result = await runStagewatch(["observe", "-f", file, "--deployment", "traced", "--namespace", namespace, "--timeout", "2m", "--json", `--subject-prefix=${service.prefix}`], {
      env: { NATS_URL: natsUrl(), TRACEPARENT: `00-${traceId}-${parentId}-01`, TRACESTATE: "ci=4812" },
    });
    expect(result.status, output(result)).toBe(0);
    const verdict = ObservationVerdict.parse(JSON.parse(result.stdout));

    const trace = await traceWith(traceId, 7);
    const names = trace.spans.map((span) => span.operationName);
    expect(names.toSorted()).toEqual(
      ["observe traced", "stage applied", "stage bootstrapped", "stage healthy", `Job ${namespace}/migrate`, `Deployment ${namespace}/api`, `ConfigMap ${namespace}/api-config`].toSorted(),
    );
    const root = trace.spans.find((span) => span.operationName === "observe traced")!;
    expect(root.references).toEqual([{ refType: "CHILD_OF", traceID: traceId, spanID: parentId }]);
    expect(tag(root, "stagewatch.observation.id")).toBe(verdict.observationId);
    expect(tag(root, "stagewatch.outcome")).toBe("succeeded");
    expect(tag(root, "k8s.namespace.name")).toBe(namespace);
    expect(trace.processes[root.processID]?.serviceName).toBe("stagewatch-e2e");
    for (const span of trace.spans.filter((s) => s !== root)) {
      expect(span.references, span.operationName).toEqual([{ refType: "CHILD_OF", traceID: traceId, spanID: root.spanID }]);
    }
    const apiSpan = trace.spans.find((span) => span.operationName === `Deployment ${namespace}/api`)!;
    expect(tag(apiSpan, "k8s.deployment.name")).toBe("api");
    expect(tag(apiSpan, "stagewatch.resource.state")).toBe("settled");
    expect(tag(trace.spans.find((span) => span.operationName === `Job ${namespace}/migrate`)!, "k8s.job.name")).toBe("migrate");
    // The observation spans its children: request to decision.
    for (const span of trace.spans) expect(span.startTime + span.duration).toBeLessThanOrEqual(root.startTime + root.duration);
    console.log(`span tree of observation ${verdict.observationId} as Jaeger returns it:\n${tree(trace).join("\n")}`);
  });
});

describe("an observation whose driver is SIGKILLed and adopted", () => {
  it("is still one observation span, with the stages reached before the kill and the adoption as an event", async () => {
    const fleet = new ServeFleet({ kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), env: exportEnv() });
    try {
      const replicas = await Promise.all([fleet.start("trace-0"), fleet.start("trace-1")]);
      const { traceId, parentId } = newTraceParent();
      // The client library joins the trace through its option, as an instrumented deploy tool would.
      const observer = await connectObserver({ servers: natsUrl(), prefix: fleet.prefix, traceContext: () => ({ traceparent: `00-${traceId}-${parentId}-01` }) });
      try {
        const stuck = deployment({ namespace, name: "adopted", fault: Fault.NeverReady });
        await apply(kc, stuck.manifest);
        const run = await observer.observe(observeRequest({ deployment: "adopted", resources: [stuck.identity], timeoutSeconds: 120 }));
        // No bootstrap Job: applied and bootstrapped come together; healthy waits for the fixed pods.
        const owner = await eventually("the observation bootstrapped, and its driver", async () => {
          const verdict = await observer.get(run.observationId);
          const lines = fleet.logLines("stage reached").filter((line) => line.observationId === run.observationId);
          return verdict?.reached === "bootstrapped" && lines[0] ? lines[0].replica : undefined;
        });
        const driver = replicas.find((replica) => replica.id === owner)!;
        const other = replicas.find((replica) => replica.id !== owner)!.id;
        await driver.service.process.kill("SIGKILL");
        await eventually("adopted by the other replica", async () => fleet.logLines("observation adopted").find((line) => line.observationId === run.observationId && line.replica === other));
        // Its Deployment informer listed (the stuck pods read from its cache), so what decides is the fixed pods' watch event.
        const survivorUrl = replicas.find((replica) => replica.id === other)!.service.url;
        await eventually("the adopter's Deployment informer synced", async () =>
          /stagewatch_informer_objects\{kind="apps\/Deployment"\} [1-9]/.test(await fetch(`${survivorUrl}/metrics`).then((r) => r.text())) || undefined,
        );
        await apply(kc, deployment({ namespace, name: "adopted" }).manifest);
        expect((await run.verdict).outcome).toBe("succeeded");

        const trace = await traceWith(traceId, 5);
        const observationSpans = trace.spans.filter((span) => span.operationName === "observe adopted");
        expect(observationSpans).toHaveLength(1);
        expect(observationSpans[0]!.references).toEqual([{ refType: "CHILD_OF", traceID: traceId, spanID: parentId }]);
        expect(trace.spans.map((span) => span.operationName).toSorted()).toEqual(["observe adopted", "stage applied", "stage bootstrapped", "stage healthy", `Deployment ${namespace}/adopted`].toSorted());
        const adopted = observationSpans[0]!.logs.filter((log) => log.fields.some((f) => f.key === "event" && f.value === "adopted"));
        expect(adopted).toHaveLength(1);
        expect(tag(observationSpans[0]!, "stagewatch.adoptions")).toBe(1);
        // Exported by the replica that decided: the survivor.
        expect(trace.processes[observationSpans[0]!.processID]?.tags.find((t) => t.key === "service.instance.id")?.value).toBe(other);
        // The watch event of the fixed pods decided it there: the exemplar of its verdict names the
        // trace, in the OpenMetrics format the scraper asks for, and only there.
        const openMetrics = await fetch(`${survivorUrl}/metrics`, { headers: { accept: "application/openmetrics-text; version=1.0.0" } }).then((r) => r.text());
        expect(openMetrics).toMatch(new RegExp(`stagewatch_event_to_verdict_seconds_bucket\\{le="[^"]+"\\} \\d+ # \\{trace_id="${traceId}"\\}`));
        const plain = await fetch(`${survivorUrl}/metrics`).then((r) => r.text());
        expect(plain).not.toContain("trace_id");
      } finally {
        await observer.close();
      }
    } finally {
      await fleet.stopAll();
    }
  });
});

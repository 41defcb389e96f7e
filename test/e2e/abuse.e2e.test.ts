/**
 * Bounded under abuse (issue 18, end-to-end tests 2-5), against the real control plane, the e2e
 * nats-server and `stagewatch serve` as a process of its own (so a probe loop measures its event
 * loop, not this test's):
 * 2. a 900 KiB Warning event and a 900 KiB custom-resource condition message under observation:
 *    /healthz answers within a second throughout, the right verdict, the readings bounded;
 * 3. the 1,000-resource request: accepted and decided, or too_large; never internal;
 * 4. 3,000 distinct requests from one caller at once: every one answered (ok or a named limit),
 *    RSS bounded, /readyz answering throughout, a normal request afterwards decided;
 * 5. a failing Job whose termination message holds each secret shape of the corpus: none reaches
 *    the verdict, the events, the service's log or /metrics.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectObserver, type Observer } from "../../src/bus/index.js";
import type { ObservationEvent } from "../../src/verdicts/contract/schemas.js";
import { installKind, removeKind, type TestKind } from "./support/crds.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, natsUrl } from "./support/cluster.js";
import { deployment, job } from "./support/manifests.js";
import { useServes, type ServeUnderPrefix } from "./support/serve.ts";
import { apply, collect, observeRequest, sumSamples } from "./support/stagewatch.js";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const customObjects = kc.makeApiClient(CustomObjectsApi);
const serves = useServes();
let serve: ServeUnderPrefix;
let observer: Observer;
let raw: NatsConnection;
let namespace: string;
let widgets: TestKind;
const group = `abuse-${randomBytes(4).toString("hex")}.e2e.stagewatch.io`;

beforeAll(async () => {
  [serve, namespace, widgets] = await Promise.all([serves.start({ name: "abuse" }), createNamespace("abuse"), installKind(group, "Widget", "widgets")]);
  observer = await connectObserver({ servers: natsUrl(), prefix: serve.prefix });
  raw = await connect({ servers: natsUrl() });
}, 120_000);

afterAll(async () => {
  await observer?.close();
  await raw?.close();
  if (namespace) await deleteNamespace(namespace);
  if (widgets) await removeKind(widgets);
});

/**
 * Asks `path` every 50 ms until stopped, from a worker thread: its own event loop, so what it
 * measures is the service's answer, not this process's lag while it sends a flood. The slowest
 * answer's milliseconds (a failed one counts as Infinity) and how many were asked.
 */
function probeLoop(path: string) {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     let slowest = 0, answered = 0, running = true;
     parentPort.on("message", () => { running = false; });
     (async () => {
       while (running) {
         const startedAt = performance.now();
         const ok = await fetch(workerData.url).then((r) => r.status === 200, () => false);
         slowest = Math.max(slowest, ok ? performance.now() - startedAt : Infinity);
         answered += 1;
         await new Promise((resolve) => setTimeout(resolve, 50));
       }
       parentPort.postMessage({ slowestMs: slowest, answered });
     })();`,
    { eval: true, workerData: { url: `${serve.url}${path}` } },
  );
  const result = new Promise<{ slowestMs: number; answered: number }>((resolve) => worker.once("message", resolve));
  return {
    async stop() {
      worker.postMessage("stop");
      const measured = await result;
      await worker.terminate();
      return measured;
    },
  };
}

/** Whether `text` holds `secret` as a word of its own: "deploy" (a user name) is not in "deployment". */
function holds(text: string, secret: string): boolean {
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`).test(text);
}

const kib900 = (word: string) => `${word} `.repeat(Math.ceil((900 * 1024) / (word.length + 1))).slice(0, 900 * 1024);

describe("900 KiB of text from the cluster", () => {
  it("a Warning event and a condition message that large: /healthz within a second throughout, the right verdict, bounded readings", async () => {
    const api = deployment({ namespace, name: "api-noisy", fault: Fault.NeverReady });
    const [applied] = await apply(kc, api.manifest);
    const widget = { apiVersion: widgets.apiVersion, kind: "Widget", namespace, name: "noisy" };
    const [created] = await apply(kc, { apiVersion: widget.apiVersion, kind: "Widget", metadata: { name: "noisy", namespace }, spec: {} });
    const probes = probeLoop("/healthz");
    const run = await observer.observe(observeRequest({ deployment: "noisy", resources: [api.identity, widget], timeoutSeconds: 25, stallSeconds: 0 }));

    await core.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: `api-noisy.${randomBytes(4).toString("hex")}` },
        involvedObject: { apiVersion: "apps/v1", kind: "Deployment", name: "api-noisy", namespace, uid: applied!.metadata!.uid! },
        type: "Warning",
        reason: "FailedCreate",
        message: kib900("quota"),
        count: 1,
        firstTimestamp: new Date(),
        lastTimestamp: new Date(),
        source: { component: "e2e" },
      },
    });
    const status = (conditionStatus: string, message: string) => ({
      observedGeneration: created!.metadata!.generation,
      conditions: [{ type: "Ready", status: conditionStatus, reason: conditionStatus === "True" ? "Ready" : "Reconciling", message, lastTransitionTime: new Date().toISOString() }],
    });
    const writeStatus = async (conditionStatus: string, message: string) => {
      const current = (await customObjects.getNamespacedCustomObject({ group, version: "v1", namespace, plural: "widgets", name: "noisy" })) as { metadata: Record<string, unknown> };
      await customObjects.replaceNamespacedCustomObjectStatus({
        group, version: "v1", namespace, plural: "widgets", name: "noisy",
        body: { apiVersion: widget.apiVersion, kind: "Widget", metadata: current.metadata, spec: {}, status: status(conditionStatus, message) },
      });
    };
    await writeStatus("False", kib900("reconciling"));
    await eventually("the widget's long reading", async () => {
      const reading = (await observer.get(run.observationId))?.resources[1];
      return reading?.message?.startsWith("reconciling") ? reading : undefined;
    });
    await writeStatus("True", "ready");

    const { events, verdict } = await collect(run);
    const { slowestMs, answered } = await probes.stop();
    expect(verdict.outcome).toBe("timed_out");
    expect(verdict.resources.map((r) => [r.identity.name, r.state])).toEqual([["api-noisy", "pending"], ["noisy", "settled"]]);
    expect(verdict.resources[0]?.warning).toMatchObject({ reason: "FailedCreate" });
    for (const reading of [...verdict.resources, ...events.flatMap((e: ObservationEvent) => (e.type === "progress" ? [e.resource] : []))]) {
      expect(reading.message?.length ?? 0).toBeLessThanOrEqual(2 * 1024 + 64);
      expect(reading.warning?.message.length ?? 0).toBeLessThanOrEqual(1024);
    }
    console.info(`900 KiB texts: slowest /healthz ${Math.round(slowestMs)} ms over ${answered} probes`);
    expect(answered).toBeGreaterThan(10);
    expect(slowestMs).toBeLessThan(1_000);
  }, 90_000);
});

describe("the 1,000-resource request", () => {
  const resources = (nameLength: number) =>
    Array.from({ length: 1000 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", namespace, name: `${"c".repeat(nameLength - 5)}${String(i).padStart(5, "0")}` }));

  it("with 253-character names: too_large naming resources and the bytes, or accepted and decided (the server's max_payload decides); never internal", async () => {
    const request = observeRequest({ deployment: "wide", resources: resources(253), absentGraceSeconds: 1, timeoutSeconds: 120 });
    const reply = (await raw.request(serve.names.observe, JSON.stringify(request), { timeout: 30_000 })).json<{ ok: boolean; observationId?: string; error?: { code: string; message: string; issues: { path: string }[] } }>();
    if (!reply.ok) {
      expect(reply.error?.code).toBe("too_large");
      expect(reply.error?.issues.map((i) => i.path)).toEqual(["resources"]);
      expect(reply.error?.message).toMatch(/could grow to \d+ bytes, over the \d+ the NATS server's max_payload leaves/);
      return;
    }
    // The e2e server takes 8 MB messages (test/cluster): the record fits; it is decided like any other.
    const verdict = await eventually("the wide observation's verdict", async () => {
      const got = await observer.get(reply.observationId!);
      return got && got.outcome !== "in_progress" ? got : undefined;
    });
    expect(verdict).toMatchObject({ outcome: "failed", failure: { reason: "NotFound" } });
    expect(verdict.resources).toHaveLength(1000);
  }, 150_000);

  it("with short names: accepted and decided (none exists: failed NotFound after the grace)", async () => {
    const run = await observer.observe(observeRequest({ deployment: "wide", resources: resources(20), absentGraceSeconds: 1, timeoutSeconds: 120 }));
    const verdict = await run.verdict;
    expect(verdict.outcome).toBe("failed");
    expect(verdict.resources).toHaveLength(1000);
    expect(verdict.failure?.reason).toBe("NotFound");
  }, 150_000);
});

describe("a flood of 3,000 distinct requests from one caller", () => {
  it("answers every one (ok or quota), keeps /readyz answering and RSS bounded, then decides a normal request", async () => {
    const rss = async () => sumSamples(await (await fetch(`${serve.url}/metrics`)).text(), "stagewatch_process_resident_memory_bytes", {});
    const bodies = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify(observeRequest({ deployment: "flood", resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace, name: `flood-${i}` }], absentGraceSeconds: 1, timeoutSeconds: 60 })),
    );
    const probes = probeLoop("/readyz");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const flood = bodies.map((body) => raw.request(serve.names.observe, body, { timeout: 60_000 }).then((msg) => msg.json<{ ok: boolean; error?: { code: string; message: string } }>()));
    const replies = await Promise.all(flood);
    const { slowestMs } = await probes.stop();
    const codes = new Map<string, number>();
    for (const reply of replies) codes.set(reply.ok ? "ok" : reply.error!.code, (codes.get(reply.ok ? "ok" : reply.error!.code) ?? 0) + 1);
    expect([...codes.keys()].filter((code) => code !== "ok" && code !== "quota")).toEqual([]);
    expect(codes.get("ok")).toBeGreaterThan(0);
    expect(codes.get("quota")).toBeGreaterThan(0);
    expect(replies.find((r) => !r.ok)?.error?.message).toMatch(/limit (requestsPerSecond|inFlightPerCaller|inFlight) \d+/);
    const rssBytes = await rss();
    console.info(`flood: ${JSON.stringify(Object.fromEntries(codes))}, slowest /readyz ${Math.round(slowestMs)} ms, RSS ${Math.round(rssBytes / 1024 ** 2)} MiB`);
    expect(slowestMs).toBeLessThan(1_000);
    expect(rssBytes).toBeLessThan(512 * 1024 ** 2);

    // A second later the caller's bucket has room again.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const run = await observer.observe(observeRequest({ deployment: "after-flood", resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace, name: "after-flood" }], absentGraceSeconds: 1, timeoutSeconds: 60 }));
    expect((await run.verdict).outcome).toBe("failed");
  }, 180_000);
});

describe("secrets in a failing Job's termination message", () => {
  type Shape = { text: string; secrets: string[] };
  const shapes = (JSON.parse(readFileSync(new URL("../fixtures/secret-shapes.json", import.meta.url), "utf8")) as { secrets: Shape[] }).secrets;
  // A failure message carries the first kilobyte of the termination message: the shapes go in
  // messages under it, each Job failing with a few.
  const batches: Shape[][] = [];
  for (const shape of shapes) {
    const last = batches.at(-1);
    if (last && [...last, shape].map((s) => s.text).join("\n").length < 900) last.push(shape);
    else batches.push([shape]);
  }

  it("reach none of the verdict, the events, the service's log and /metrics", async () => {
    const runs = await Promise.all(
      batches.map(async (batch, i) => {
        const failing = job({ namespace, name: `leaky-${i}`, fault: Fault.Error, terminationMessage: batch.map((s) => s.text).join("\n") });
        await apply(kc, failing.manifest);
        return observer.observe(observeRequest({ deployment: "leaky", resources: [failing.identity], timeoutSeconds: 120 }));
      }),
    );
    const outcomes = await Promise.all(runs.map((run) => collect(run)));
    for (const { verdict } of outcomes) {
      expect(verdict.outcome).toBe("failed");
      expect(verdict.failure?.message).toContain("[redacted]");
    }
    const published = JSON.stringify(outcomes);
    const metrics = await (await fetch(`${serve.url}/metrics`)).text();
    const log = readFileSync(join(serve.dir, "serve.log"), "utf8");
    const leaked = shapes.flatMap((shape) => shape.secrets).filter((secret) => [published, metrics, log].some((text) => holds(text, secret)));
    expect(leaked).toEqual([]);
  }, 180_000);
});

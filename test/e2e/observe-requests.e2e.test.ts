/**
 * The request side of an observation, through NATS against the running service: idempotency by
 * key, cancel, a client that follows an observation after its verdict, and bad requests sent as
 * raw bytes (past the client's own checks), which get a structured error and leave the service
 * answering.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ObservationConflictError } from "../../src/bus/index.js";
import { maxBodyBytes, type ErrorReply, type ObserveReply } from "../../src/verdicts/contract/schemas.js";
import { Fault, kubeConfig } from "./support/cluster.js";
import { deployment } from "./support/manifests.js";
import { apply, collect, nextReading, observeRequest, observeInOwnNamespace, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("requests", (file) => ({ stagewatch, namespace } = file));

describe("idempotency", () => {
  it("the same key and content is the same observation (replay); the same key with other content is a conflict", async () => {
    const pending = deployment({ namespace, name: "orders", fault: Fault.NeverReady });
    await apply(kc, pending.manifest);
    const request = observeRequest({ deployment: "orders", resources: [pending.identity], timeoutSeconds: 120 });
    const replayedBefore = await stagewatch.metric("stagewatch_requests_total", { result: "replayed" });

    const first = await stagewatch.observer.observe(request);
    expect(first.replay).toBe(false);
    // A retry of the pipeline step, from another process.
    const retrying = await stagewatch.connectObserver();
    const second = await retrying.observe({ ...request });
    expect(second).toMatchObject({ observationId: first.observationId, replay: true });
    expect(await stagewatch.metric("stagewatch_requests_total", { result: "replayed" })).toBe(replayedBefore + 1);

    const conflict = await retrying.observe({ ...request, require: "applied" }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(ObservationConflictError);
    // It names no other observation's id: with it, whoever guessed a key could follow or cancel that observation.
    expect((conflict as ObservationConflictError).message).toContain("already names another observation");
    expect((conflict as ObservationConflictError).message).not.toContain(first.observationId);

    // Both followers of the one observation get its one verdict.
    const cancelled = await stagewatch.observer.cancel(first.observationId, "test done");
    expect(await first.verdict).toEqual(cancelled);
    expect(await second.verdict).toEqual(cancelled);
  });
});

describe("cancel", () => {
  it("a cancelled observation ends cancelled, and a failure after the cancel does not change it", async () => {
    const checkout = deployment({ namespace, name: "checkout", fault: Fault.NeverReady });
    await apply(kc, checkout.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "checkout", resources: [checkout.identity] }));
    const progress = run.progress[Symbol.asyncIterator]();
    await nextReading(progress, (reading) => reading.reason === "ContainersNotReady");

    const cancelled = await stagewatch.observer.cancel(run.observationId, "pipeline aborted");
    expect(cancelled).toMatchObject({ observationId: run.observationId, outcome: "cancelled", reached: "bootstrapped" });
    expect(cancelled?.message).toBe("deployment checkout cancelled before reaching healthy (reached bootstrapped): pipeline aborted");
    expect(cancelled?.failure).toBeUndefined();
    expect(await run.verdict).toEqual(cancelled);
    // The follow ends with the verdict: nothing after it. (Stage events of the step that read
    // ContainersNotReady may still be queued before it.)
    const rest: string[] = [];
    for (let next = await progress.next(); !next.done; next = await progress.next()) rest.push(next.value.type);
    expect(rest.at(-1)).toBe("verdict");
    expect(rest.filter((type) => type !== "stage")).toEqual(["verdict"]);

    // The rollout then breaks for real; a second observation sees the failure...
    const broken = deployment({ namespace, name: "checkout", fault: Fault.ImagePullBackOff, image: "registry.example/checkout:typo" });
    const [applied] = await apply(kc, broken.manifest);
    const witness = await stagewatch.observer.observe(
      observeRequest({ deployment: "checkout", resources: [{ ...broken.identity, generation: applied!.metadata!.generation! }] }),
    );
    expect(await witness.verdict).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff" } });
    // ...and the cancelled one stays as it was decided.
    expect(await stagewatch.observer.get(run.observationId)).toEqual(cancelled);
    expect(await stagewatch.observer.cancel(run.observationId, "again")).toEqual(cancelled);
  });
});

describe("late subscriber", () => {
  it("a second client following the observation after its verdict reads every event, the verdict last", async () => {
    const api = deployment({ namespace, name: "inventory" });
    await apply(kc, api.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "inventory", resources: [api.identity] }));
    const first = await collect(run);
    expect(first.verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });

    const late = await stagewatch.connectObserver();
    const followed = await collect(late.follow(run.observationId));
    expect(followed.verdict).toEqual(first.verdict);
    expect(followed.events).toEqual(first.events);
    expect(followed.events.at(-1)).toMatchObject({ type: "verdict" });
  });
});

describe("bad requests through NATS", () => {
  let rejectedBefore: number;
  beforeAll(async () => {
    rejectedBefore = await stagewatch.metric("stagewatch_requests_total", { result: "rejected" });
  });
  const valid = () => observeRequest({ deployment: "payments", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" }] });
  const refused = async (body: string | Uint8Array) => {
    const reply = (await stagewatch.rawRequest(stagewatch.names.observe, body)) as ErrorReply;
    expect(reply.ok).toBe(false);
    return reply.error;
  };

  it.each([
    {
      name: "malformed JSON",
      body: () => '{"key": "ci-1/payments", "deployment": ',
      code: "invalid_request",
      issues: [{ path: "(body)", message: expect.stringContaining("malformed JSON") }],
    },
    {
      name: "wrong types",
      body: () => JSON.stringify({ ...valid(), timeoutSeconds: "300", resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: 7 }] }),
      code: "invalid_request",
      issues: [
        { path: "resources[0].name", message: expect.any(String) },
        { path: "timeoutSeconds", message: expect.any(String) },
      ],
    },
    {
      name: "an unknown stage",
      body: () => JSON.stringify({ ...valid(), require: "ready" }),
      code: "invalid_request",
      issues: [{ path: "require", message: "must be one of applied, bootstrapped, healthy, verified" }],
    },
    {
      name: "rendered, which is not observable",
      body: () => JSON.stringify({ ...valid(), require: "rendered" }),
      code: "invalid_request",
      issues: [{ path: "require", message: expect.stringContaining("'rendered' is not observable") }],
    },
    {
      name: "1,001 resources",
      body: () => JSON.stringify({ ...valid(), resources: Array.from({ length: 1001 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", namespace: "payments", name: `config-${i}` })) }),
      code: "invalid_request",
      issues: [{ path: "resources", message: "at most 1000 resources" }],
    },
    {
      name: "a body over 1 MiB",
      body: () => JSON.stringify({ ...valid(), key: "k".repeat(maxBodyBytes) }),
      code: "too_large",
      issues: [{ path: "(body)", message: expect.any(String) }],
    },
  ])("$name: $code naming the field", async ({ body, code, issues }) => {
    const error = await refused(body());
    expect(error.code).toBe(code);
    expect(error.issues.toSorted((a, b) => a.path.localeCompare(b.path))).toEqual(issues);
  });

  it("the service still answers a valid request afterwards", async () => {
    const api = deployment({ namespace, name: "after-bad-requests" });
    await apply(kc, api.manifest);
    const reply = (await stagewatch.rawRequest(
      stagewatch.names.observe,
      JSON.stringify(observeRequest({ deployment: "after", resources: [api.identity] })),
    )) as ObserveReply;
    expect(reply).toMatchObject({ ok: true, replay: false });
    const observationId = (reply as Extract<ObserveReply, { ok: true }>).observationId;
    expect(await stagewatch.observer.follow(observationId).verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    expect(await stagewatch.metric("stagewatch_requests_total", { result: "rejected" })).toBe(rejectedBefore + 6);
  });
});

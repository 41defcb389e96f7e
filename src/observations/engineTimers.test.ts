// The engine's timers on virtual time: the absence grace (never created, deleted, re-created) and
// the budget, each running on the scheduler the engine reads its clock from.
import { describe, expect, it } from "vitest";
import type { ObservationRequestInput } from "../verdicts/index.js";
import type { KubeObject } from "../kube/objects.js";
import { apiObject, uidOf } from "../../test/fixtures/kube/meta.js";
import { pod, running, waiting } from "../../test/fixtures/kube/pods.js";
import { deployment, job, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { KubeRequestError } from "../streams/index.js";
import { listBody } from "../streams/testing/index.js";
import { engineHarness, observationRequest } from "./testing/index.js";

const api = { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 } as const;
const config = { apiVersion: "v1", kind: "ConfigMap", name: "api-config" } as const;
const migrate = { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", bootstrap: true } as const;

const request = (overrides: Partial<ObservationRequestInput> = {}) => observationRequest({ resources: [api, config], ...overrides });

const apiConfig = apiObject<KubeObject>({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "api-config", namespace: "payments", uid: uidOf("configmap/api-config"), creationTimestamp: "2026-11-29T09:58:12Z" },
  data: { LOG_LEVEL: "info" },
});

function rollingOut(ready: number, incarnation: { uid: string; revision: string } | undefined = undefined) {
  return rollingOutDeployment({ replicas: 2, ...incarnation, ready });
}

describe("absence", () => {
  it("a declared object never created fails NotFound once the grace after the caches synced ends", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(1));
    const id = await h.start(request());

    await h.advance(9_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.lines(id)).toEqual(["progress ConfigMap payments/api-config failed NotFound", "verdict failed"]);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      reached: "none",
      failure: { stage: "applied", reason: "NotFound", resource: { ...config, namespace: "payments" } },
      message: "deployment payments cannot reach applied: ConfigMap payments/api-config: failed: NotFound: not found 10s after the caches synced",
      decidedAt: "2026-11-29T10:00:10.000Z",
    });
  });

  it("the grace counts from the caches syncing, not from the request, and follows absentGraceSeconds", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(1));
    // The first ConfigMap list fails: the informer syncs after its backoff (800 ms with no jitter).
    let refusals = 1;
    h.transport.onGet("/api/v1/configmaps", () => {
      if (refusals-- > 0) throw new KubeRequestError("GET /api/v1/configmaps: 503 ServiceUnavailable", { status: 503, reason: "ServiceUnavailable" });
      return listBody([], "48100");
    });
    const id = await h.start(request({ absentGraceSeconds: 30 }));
    expect(h.transport.gets("/api/v1/configmaps")).toHaveLength(1);

    await h.advance(800 + 29_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "NotFound" }, decidedAt: "2026-11-29T10:00:30.800Z" });
  });

  it("an object created within the grace is followed", async () => {
    const h = engineHarness();
    h.cluster.put(deployment({ replicas: 2 }));
    const id = await h.start(request());
    await h.advance(6_000);
    h.cluster.put(apiConfig);
    await h.advance(60_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", decidedAt: "2026-11-29T10:00:06.000Z" });
  });
});

/** The observation of api and its ConfigMap, 20 s into a rollout with no pod ready. */
async function twentySecondsIntoRollout() {
  const h = engineHarness();
  h.cluster.put(rollingOut(0));
  h.cluster.put(apiConfig);
  const id = await h.start(request());
  await h.advance(20_000);
  return { h, id };
}

describe("deletion", () => {
  it("a declared object deleted before it settled fails NotFound when the grace ends", async () => {
    const { h, id } = await twentySecondsIntoRollout();

    h.cluster.delete(rollingOut(0));
    await h.advance(0);
    expect(h.events.lines(id).at(-1)).toBe("progress Deployment payments/api pending Deleted");
    await h.advance(9_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      failure: { stage: "healthy", reason: "NotFound" },
      message: "deployment payments cannot reach healthy: Deployment payments/api: failed: NotFound: deleted before it settled",
      decidedAt: "2026-11-29T10:00:30.000Z",
    });
  });

  it("a delete and a re-create with a new UID inside the grace is followed, the new incarnation's pods with it", async () => {
    const { h, id } = await twentySecondsIntoRollout();

    // kubectl replace --force: the same name comes back as a new object with a new UID.
    h.cluster.delete(rollingOut(0));
    await h.advance(4_000);
    const incarnation = { uid: uidOf("deployment/api#2"), revision: "1" };
    const recreated = rollingOut(0, incarnation);
    const rs = replicaSet(recreated, { name: "api-7f9c6d8b5", revision: "1", replicas: 2, ready: 0 });
    h.cluster.put(recreated);
    h.cluster.put(rs);
    h.cluster.put(pod({ name: "api-7f9c6d8b5-z7c4q", owner: rs, phase: "Pending", containers: [waiting("api", "ContainerCreating")] }));
    await h.advance(30_000);
    expect((await h.engine.get(id))?.resources[0]).toMatchObject({ state: "pending", reason: "ContainerCreating" });

    h.cluster.put(pod({ name: "api-7f9c6d8b5-z7c4q", owner: rs, containers: [running("api")] }));
    h.cluster.put(deployment({ replicas: 2, ...incarnation }));
    await h.advance(0);
    expect(h.events.lines(id)).toEqual([
      "progress ConfigMap payments/api-config settled",
      "stage applied",
      "stage bootstrapped",
      "progress Deployment payments/api pending Deleted",
      "progress Deployment payments/api pending",
      "progress Deployment payments/api pending ContainerCreating",
      "progress Deployment payments/api pending",
      "progress Deployment payments/api settled",
      "stage healthy",
      "verdict succeeded",
    ]);
  });
});

describe("budget", () => {
  it("on expiry the verdict is timed_out and names every outstanding resource with its last reading", async () => {
    const h = engineHarness();
    h.cluster.put(job({ status: { active: 1, ready: 1, startTime: "2026-11-29T10:00:05Z" } }));
    h.cluster.put(rollingOut(1));
    h.cluster.put(apiConfig);
    const id = await h.start(request({ resources: [migrate, api, config] }));

    await h.advance(299_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.lines(id).at(-1)).toBe("verdict timed_out");
    const verdict = h.events.verdict(id);
    expect(verdict).toMatchObject({
      outcome: "timed_out",
      reached: "applied",
      failure: { stage: "bootstrapped", reason: "InProgress", resource: { ...migrate, namespace: "payments" }, message: "0/1 completions, 1 active" },
      deadline: "2026-11-29T10:05:00.000Z",
      decidedAt: "2026-11-29T10:05:00.000Z",
    });
    expect(verdict.message.split("\n")).toEqual([
      "deployment payments did not reach bootstrapped within 5m0s: Job payments/schema-migrate: 0/1 completions, 1 active",
      "deployment payments did not reach healthy within 5m0s: Deployment payments/api: 1/2 replicas ready, 2 updated",
    ]);
    expect(h.engine.activeCount).toBe(0);
  });

  it("an absolute deadline earlier than timeoutSeconds wins", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(1));
    h.cluster.put(apiConfig);
    const id = await h.start(request({ deadline: "2026-11-29T10:01:30Z" }));
    await h.advance(89_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "timed_out", deadline: "2026-11-29T10:01:30.000Z" });
  });

  it("a deadline more than 7 days ahead is refused naming deadline, as timeoutSeconds is; one within is accepted", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(1));
    h.cluster.put(apiConfig);
    const sixWeeks = await h.observe((request({ timeoutSeconds: undefined, deadline: "2027-01-10T10:00:00Z" })));
    expect(sixWeeks).toMatchObject({ ok: false, code: "invalid_request", issues: [{ path: "deadline", message: "at most 7 days ahead (as timeoutSeconds)" }] });
    const sevenDays = new Date(h.clock.now + 7 * 86_400_000).toISOString();
    const id = await h.start(request({ timeoutSeconds: undefined, deadline: sevenDays }));
    expect((await h.engine.get(id))?.deadline).toBe(sevenDays);
  });
});

describe("stall notices", () => {
  it("say once what the observation waits on when nothing moved for stallSeconds, again only after progress resumes, and never fail it", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ stallSeconds: 60, timeoutSeconds: 600 }));
    const stalls = () => h.events.of(id).filter((event) => event.type === "stalled");

    await h.advance(59_000);
    expect(stalls()).toEqual([]);
    await h.advance(1_000);
    expect(stalls()).toHaveLength(1);
    expect(stalls()[0]).toMatchObject({
      sinceSeconds: 60,
      waitingFor: [{ identity: { kind: "Deployment", name: "api" }, state: "pending" }],
    });
    expect((stalls()[0] as { message: string }).message).toMatch(/^deployment payments has not moved for 1m0s, waiting for healthy: Deployment payments\/api: /);
    await h.advance(180_000);
    expect(stalls()).toHaveLength(1);

    // A reading changes: the quiet time starts again.
    h.cluster.put(rollingOut(1));
    await h.advance(30_000);
    expect(stalls()).toHaveLength(1);
    await h.advance(30_000);
    expect(stalls()).toHaveLength(2);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
  });

  it("are off with stallSeconds 0", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ stallSeconds: 0, timeoutSeconds: 600 }));
    await h.advance(590_000);
    expect(h.events.of(id).filter((event) => event.type === "stalled")).toEqual([]);
  });
});

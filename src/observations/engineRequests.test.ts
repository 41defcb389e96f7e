// What the engine answers a request: accepted, replayed, conflicting, refused (unknown kind,
// namespaces outside the watch), unavailable (discovery down); cancel and get; and the record it
// keeps in step with the verdict under compare-and-swap.
import { describe, expect, it } from "vitest";
import { pod, waiting } from "../../test/fixtures/kube/pods.js";
import { deployment, deploymentConditions, replicaSet } from "../../test/fixtures/kube/workloads.js";
import { engineHarness, observationRequest } from "./testing/index.js";

const api = { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 } as const;

const rollingOut = () =>
  deployment({
    replicas: 1,
    status: {
      observedGeneration: 7,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 0,
      availableReplicas: 0,
      unavailableReplicas: 1,
      conditions: [deploymentConditions.unavailable(), deploymentConditions.progressing("api-7f9c6d8b5")],
    },
  });
const currentRs = replicaSet(rollingOut(), { name: "api-7f9c6d8b5", revision: "4", replicas: 1, ready: 0 });
const pullingPod = (reason: "ContainerCreating" | "ImagePullBackOff") =>
  pod({ name: "api-7f9c6d8b5-x2k8p", owner: currentRs, phase: "Pending", containers: [waiting("api", reason)] });

const appsV1 = [
  { name: "deployments", kind: "Deployment", namespaced: true },
  { name: "replicasets", kind: "ReplicaSet", namespaced: true },
  { name: "statefulsets", kind: "StatefulSet", namespaced: true },
  { name: "daemonsets", kind: "DaemonSet", namespaced: true },
  { name: "controllerrevisions", kind: "ControllerRevision", namespaced: true },
];

describe("idempotency by key", () => {
  it("the same key with the same content replays the first observation; other content is a conflict", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut());
    const first = await h.observe(observationRequest());
    expect(first).toEqual({ ok: true, observationId: "obs-1", replay: false });

    // Same content in another order, defaults written out: still the same request.
    const again = await h.observe(observationRequest({ failOn: ["InvalidImageName", "ImagePullBackOff"], absentGraceSeconds: 10 }));
    expect(again).toEqual({ ok: true, observationId: "obs-1", replay: true });

    const other = await h.observe(observationRequest({ timeoutSeconds: 600 }));
    expect(other).toEqual({ ok: false, code: "conflict", message: "key 'ci-4812/payments' already names another observation, with other content" });

    expect(h.engine.activeCount).toBe(1);
    expect(h.records.ids()).toEqual(["obs-1"]);
    expect(h.events.events.filter((event) => event.observationId !== "obs-1")).toEqual([]);
  });

  it("a replay after the verdict still answers with the decided observation", async () => {
    const h = engineHarness();
    h.cluster.put(deployment({ replicas: 1 }));
    const first = await h.observe(observationRequest());
    expect((await h.engine.get("obs-1"))?.outcome).toBe("succeeded");
    expect(await h.observe(observationRequest())).toEqual({ ok: true, observationId: "obs-1", replay: true });
    expect(first).toMatchObject({ replay: false });
  });
});

describe("refused requests", () => {
  it("an unknown kind is invalid_request naming resources[i].kind, after a fresh look at discovery", async () => {
    const h = engineHarness();
    h.cluster.discovery("apps/v1", appsV1);
    const result = await h.observe(
      observationRequest({
        resources: [
          { apiVersion: "v1", kind: "ConfigMap", name: "api-config" },
          { apiVersion: "apps/v1", kind: "Deploymnet", name: "api" },
          { apiVersion: "example.com/v1", kind: "Widget", name: "blue" },
        ],
      }),
    );
    expect(result).toMatchObject({
      ok: false,
      code: "invalid_request",
      issues: [
        { path: "resources[1].kind", message: expect.stringContaining("Deploymnet (apps/v1)") },
        { path: "resources[2].kind", message: expect.stringContaining("Widget (example.com/v1)") },
      ],
    });
    expect(h.transport.gets("/apis/apps/v1")).toHaveLength(1);
    expect(h.transport.gets("/apis/example.com/v1")).toHaveLength(1);
    expect(h.engine.activeCount).toBe(0);
    expect(h.records.ids()).toEqual([]);
    expect(h.transport.watches()).toEqual([]);
  });

  it("a discovery failure is unavailable: the kind may exist, the client should retry", async () => {
    const h = engineHarness();
    h.cluster.failDiscovery("example.com/v1");
    const result = await h.observe(observationRequest({ resources: [api, { apiVersion: "example.com/v1", kind: "Widget", name: "blue" }] }));
    expect(result).toEqual({
      ok: false,
      code: "unavailable",
      message: "cannot read the API server's discovery: discovery of example.com/v1 failed",
    });
    expect(h.records.ids()).toEqual([]);
  });

  it("with --namespaces, a resource in a namespace not watched is invalid_request naming resources[i].namespace", async () => {
    const h = engineHarness({ namespaces: ["payments", "shop"] });
    h.cluster.discovery("rbac.authorization.k8s.io/v1", [
      { name: "roles", kind: "Role", namespaced: true },
      { name: "clusterroles", kind: "ClusterRole", namespaced: false },
    ]);
    const result = await h.observe(
      observationRequest({
        resources: [
          api,
          { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "storefront" },
          { apiVersion: "v1", kind: "Secret", namespace: "kube-system", name: "registry-credentials" },
          { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "payments-reader" },
        ],
      }),
    );
    expect(result).toEqual({
      ok: false,
      code: "invalid_request",
      message: "resources outside the watched namespaces",
      issues: [{ path: "resources[2].namespace", message: "not watched by this service (--namespaces payments,shop)" }],
    });
    // Cluster-scoped kinds have no namespace to be outside of.
    expect(h.transport.requests.map((r) => r.path)).toEqual(["/apis/rbac.authorization.k8s.io/v1"]);
    expect(h.records.ids()).toEqual([]);
  });

  it("with --namespaces, a resource inside them is watched in its namespace only", async () => {
    const h = engineHarness({ namespaces: ["payments", "shop"] });
    h.cluster.put(deployment({ replicas: 1 }));
    const id = await h.start(observationRequest());
    expect((await h.engine.get(id))?.outcome).toBe("succeeded");
    expect(h.transport.watches().map((watch) => watch.request.path)).toContain("/apis/apps/v1/namespaces/payments/deployments");
    expect(h.transport.requests.filter((r) => r.path === "/apis/apps/v1/deployments")).toEqual([]);
  });
});

describe("cancel and get", () => {
  it("cancel decides the observation once; a failure arriving later changes nothing", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut());
    h.cluster.put(currentRs);
    h.cluster.put(pullingPod("ContainerCreating"));
    const id = await h.start(observationRequest());
    await h.advance(42_000);

    const cancelled = await h.engine.cancel(id, "pipeline ci-4812 aborted");
    expect(cancelled).toMatchObject({
      outcome: "cancelled",
      reached: "bootstrapped",
      message: "deployment payments cancelled before reaching healthy (reached bootstrapped): pipeline ci-4812 aborted",
      decidedAt: "2026-11-29T10:00:42.000Z",
    });
    const published = h.events.lines(id);
    expect(published.at(-1)).toBe("verdict cancelled");

    h.cluster.put(pullingPod("ImagePullBackOff"));
    await h.advance(600_000);
    expect(h.events.lines(id)).toEqual(published);
    expect(await h.engine.get(id)).toEqual(cancelled);
    expect(await h.engine.cancel(id, "again")).toEqual(cancelled);
    expect((await h.records.getRecord(id))?.record).toMatchObject({ outcome: "cancelled", verdict: cancelled });
  });

  it("get answers from the records once a decided verdict has left memory; unknown ids are undefined", async () => {
    const h = engineHarness({ decidedMemory: 1 });
    h.cluster.put(deployment({ replicas: 1 }));
    h.cluster.put(deployment({ name: "worker", replicas: 1 }));
    const first = await h.start(observationRequest());
    await h.start(observationRequest({ key: "ci-4812/worker", resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "worker" }] }));

    expect(await h.engine.get(first)).toMatchObject({
      observationId: first,
      outcome: "succeeded",
      message: "deployment payments reached healthy: 1 resource settled",
    });
    expect(await h.engine.get("obs-404")).toBeUndefined();
    expect(await h.engine.cancel("obs-404", undefined)).toBeUndefined();
  });
});

describe("the observation record", () => {
  it("carries the request's identities and budget and follows the verdict, one write a step", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut());
    const id = await h.start(observationRequest());
    const stored = await h.records.getRecord(id);
    expect(stored?.record).toMatchObject({
      observationId: id,
      identities: [{ ...api, namespace: "payments" }],
      startedAt: "2026-11-29T10:00:00.000Z",
      deadline: "2026-11-29T10:05:00.000Z",
      outcome: "in_progress",
      verdict: { reached: "bootstrapped" },
    });

    h.cluster.put(deployment({ replicas: 1 }));
    await h.advance(0);
    const decided = await h.records.getRecord(id);
    expect(decided?.record).toMatchObject({ outcome: "succeeded", verdict: { outcome: "succeeded", reached: "healthy" } });
    // Revisions are one sequence over the bucket: the step that settled the Deployment, reached
    // healthy and decided wrote the record once.
    expect(decided!.revision).toBe(stored!.revision + 1);
  });

  it("lets another replica answer get before any stage is reached", async () => {
    const h = engineHarness();
    const id = await h.start(observationRequest());
    const otherReplica = h.replica("replica-b").engine;
    expect(await otherReplica.get(id)).toMatchObject({
      observationId: id,
      outcome: "in_progress",
      reached: "none",
      message: "deployment payments waiting for healthy: 0/1 resources applied",
      resources: [{ identity: { ...api, namespace: "payments" }, state: "pending", message: "not seen in the cluster yet" }],
    });
  });

  it("is never overwritten once another writer decided it: the first terminal outcome stands, and only its writer publishes", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut());
    const id = await h.start(observationRequest());
    // Another replica decides the observation through the record (a cancel it received).
    const stored = (await h.records.getRecord(id))!;
    const cancelled = { ...stored.record, outcome: "cancelled" as const, verdict: { ...stored.record.verdict!, outcome: "cancelled" as const } };
    expect(await h.records.updateRecord(cancelled, stored.revision)).toMatchObject({ updated: true });

    h.cluster.put(deployment({ replicas: 1 }));
    await h.advance(0);
    expect((await h.records.getRecord(id))?.record.outcome).toBe("cancelled");
    expect((await h.engine.get(id))?.outcome).toBe("cancelled");
    expect(h.events.lines(id)).not.toContain("verdict succeeded");
    expect(h.logged.filter((line) => line.level === "warn").map((line) => line.message)).toEqual([
      "observation record changed elsewhere; no longer driving it",
      "verdict not stored: the record was decided or taken elsewhere",
    ]);
  });
});

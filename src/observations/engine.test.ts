// The live engine routing real informer events (a scripted API server, on virtual time) to the
// observations that care: ownership through controller UIDs, the current ReplicaSet only, events
// only on transitions, settled resources dropped, one watch per kind.
import { describe, expect, it } from "vitest";
import type { Deployment, KubeObject } from "../kube/objects.js";
import { apiObject, condition, controllerRef, uidOf } from "../../test/fixtures/kube/meta.js";
import { pod, running, terminated, waiting } from "../../test/fixtures/kube/pods.js";
import { deployment, job, jobConditions, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { builtinMappings, KubeRequestError } from "../streams/index.js";
import { SteppedSlicing } from "../streams/testing/index.js";
import { drainMicrotasks, engineHarness, observationRequest, putObjects as put } from "./testing/index.js";

const api = { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 } as const;
const migrate = { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", bootstrap: true } as const;

/** A Deployment mid-rollout: the controller has created every new replica, `ready` of them ready. */
function rollingOut(ready: number, options: { name?: string; uid?: string; replicas?: number; revision?: string; old?: number } = {}): Deployment {
  return rollingOutDeployment({ replicas: 2, ...options, ready });
}

const creating = () => waiting("api", "ContainerCreating");
const imagePullBackOff = () => waiting("api", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/payments-api:1.4.4"');

describe("a Deployment through its ReplicaSet and pods", () => {
  it("settles when the rollout completes, its pods joined through controller UIDs", async () => {
    const h = engineHarness();
    const rs = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 0 });
    await put(
      h,
      rollingOut(0),
      rs,
      pod({ name: "api-7f9c6d8b5-x2k8p", owner: rs, phase: "Pending", containers: [creating()] }),
      pod({ name: "api-7f9c6d8b5-q9v4m", owner: rs, phase: "Pending", containers: [creating()] }),
    );
    const id = await h.start(observationRequest());
    // No bootstrap Job: bootstrapped holds as soon as applied does. The pods are indexed before the
    // Deployment's first reading (owned kinds replay first), so that reading already names them.
    expect(h.events.lines(id)).toEqual(["progress Deployment payments/api pending ContainerCreating", "stage applied", "stage bootstrapped"]);
    expect((await h.engine.get(id))?.resources[0]).toMatchObject({
      state: "pending",
      reason: "ContainerCreating",
      message: "0/2 replicas ready, 2 updated; pod api-7f9c6d8b5-q9v4m container api: ContainerCreating",
    });

    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: rs, containers: [running("api")] }));
    await put(h, pod({ name: "api-7f9c6d8b5-q9v4m", owner: rs, containers: [running("api")] }));
    await put(h, rollingOut(1));
    expect(h.events.lines(id).slice(3)).toEqual(["progress Deployment payments/api pending"]);

    await put(h, deployment({ replicas: 2 }));
    await h.advance(0);
    expect(h.events.lines(id).slice(4)).toEqual([
      "progress Deployment payments/api settled",
      "stage healthy",
      "verdict succeeded",
    ]);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "succeeded",
      required: "healthy",
      reached: "healthy",
      message: "deployment payments reached healthy: 1 resource settled",
      resources: [{ identity: { ...api, namespace: "payments" }, state: "settled", message: "2/2 replicas ready, 2 updated" }],
      startedAt: "2026-11-29T10:00:00.000Z",
      decidedAt: "2026-11-29T10:00:00.000Z",
    });
    expect(h.engine.activeCount).toBe(0);
    expect((await h.records.getRecord(id))?.record).toMatchObject({ outcome: "succeeded", verdict: { outcome: "succeeded" } });
  });

  it("a Deployment already ready when the pods' first list fails settles once its pods are listed, with their image digests", async () => {
    // New informers list in whatever order their answers come: the Deployment's list, saying every
    // replica is ready, may be read before the pods' list. Settling is for good, so a workload
    // settled then would carry no image digest (and its verdict no attestation subject).
    const h = engineHarness();
    const rs = replicaSet(deployment({ replicas: 2 }), { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 2 });
    const pods = ["api-7f9c6d8b5-x2k8p", "api-7f9c6d8b5-q9v4m"].map((name) => pod({ name, owner: rs, containers: [running("api")] }));
    await put(h, deployment({ replicas: 2 }), rs, ...pods);
    h.transport.onGet("/api/v1/pods", () => {
      throw new KubeRequestError("GET /api/v1/pods: 503 ServiceUnavailable", { status: 503, reason: "ServiceUnavailable" });
    });
    const id = await h.start(observationRequest());
    expect(h.events.lines(id)).toEqual(["stage applied", "stage bootstrapped"]);
    expect((await h.engine.get(id))?.resources[0]).toMatchObject({ state: "pending", message: "2/2 replicas ready, 2 updated; its pods not listed yet" });

    h.cluster.serve(builtinMappings.find((mapping) => mapping.kind === "Pod")!);
    await h.advance(60_000);
    expect(h.events.lines(id).slice(2)).toEqual(["progress Deployment payments/api settled", "stage healthy", "verdict succeeded"]);
    expect(h.events.verdict(id).resources[0]?.images).toEqual([pods[0]!.status!.containerStatuses![0]!.imageID]);
  });

  it("a pod re-sent as it was (a relist) changes nothing; its next real change is read", async () => {
    const h = engineHarness();
    const rs = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 0 });
    const pending = (name: string) => pod({ name, owner: rs, phase: "Pending", containers: [creating()] });
    await put(h, rollingOut(0), rs, pending("api-7f9c6d8b5-x2k8p"), pending("api-7f9c6d8b5-q9v4m"));
    const id = await h.start(observationRequest());
    const before = h.events.lines(id);
    await put(h, pending("api-7f9c6d8b5-x2k8p"), pending("api-7f9c6d8b5-q9v4m"));
    expect(h.events.lines(id)).toEqual(before);

    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: rs, containers: [imagePullBackOff()] }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff" } });
  });

  it("a sibling Deployment's pod with the same labels in ImagePullBackOff does not fail ours", async () => {
    const h = engineHarness();
    const ours = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
    const sibling = rollingOut(0, { name: "api-shadow", replicas: 1 });
    const siblingRs = replicaSet(sibling, { name: "api-shadow-5d8c7b9f4", revision: "1", replicas: 1, ready: 0 });
    // Same selector labels on both: a label join would take the sibling's pod for ours.
    const sharedLabels = { "app.kubernetes.io/name": "api", "app.kubernetes.io/part-of": "payments" };
    await put(h, rollingOut(1), ours, sibling, siblingRs);
    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: ours, labels: sharedLabels, containers: [running("api")] }));
    await put(h, pod({ name: "api-7f9c6d8b5-q9v4m", owner: ours, labels: sharedLabels, phase: "Pending", containers: [creating()] }));
    const id = await h.start(observationRequest());
    const before = h.events.lines(id);

    await put(h, pod({ name: "api-shadow-5d8c7b9f4-h7w2n", owner: siblingRs, labels: sharedLabels, phase: "Pending", containers: [imagePullBackOff()] }));
    expect(h.events.lines(id)).toEqual(before);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");

    await put(h, pod({ name: "api-7f9c6d8b5-q9v4m", owner: ours, labels: sharedLabels, containers: [running("api")] }));
    await put(h, deployment({ replicas: 2 }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", reached: "healthy" });
  });

  it("ignores an old ReplicaSet's pod in ImagePullBackOff; the current ReplicaSet's fails at once", async () => {
    const h = engineHarness();
    // Revision 5 is rolling out over revision 4: one new replica created, two old ones still serving.
    const current = rollingOut(0, { revision: "5", replicas: 2, old: 2 });
    const oldRs = replicaSet(current, { name: "api-6b8d9c7f4", revision: "4", replicas: 2 });
    const newRs = replicaSet(current, { name: "api-7f9c6d8b5", revision: "5", replicas: 2, ready: 0 });
    await put(
      h,
      current,
      oldRs,
      newRs,
      pod({ name: "api-6b8d9c7f4-m4k7d", owner: oldRs, containers: [running("api")] }),
      pod({ name: "api-6b8d9c7f4-t8r2x", owner: oldRs, containers: [running("api")] }),
      pod({ name: "api-7f9c6d8b5-x2k8p", owner: newRs, phase: "Pending", containers: [creating()] }),
    );
    const id = await h.start(observationRequest());

    // An old pod rescheduled onto a node that cannot pull the old image any more.
    await put(h, pod({ name: "api-6b8d9c7f4-t8r2x", owner: oldRs, phase: "Pending", containers: [imagePullBackOff()] }));
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    expect(h.events.lines(id)).toEqual(["progress Deployment payments/api pending ContainerCreating", "stage applied", "stage bootstrapped"]);

    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: newRs, phase: "Pending", containers: [imagePullBackOff()] }));
    expect(h.events.lines(id).slice(3)).toEqual(["progress Deployment payments/api failed ImagePullBackOff", "verdict failed"]);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      reached: "bootstrapped",
      failure: { stage: "healthy", resource: { ...api, namespace: "payments" }, reason: "ImagePullBackOff" },
      message:
        "deployment payments cannot reach healthy: Deployment payments/api: failed: ImagePullBackOff: " +
        "2/2 replicas ready, 2 updated, 2 old replicas pending termination; pod api-7f9c6d8b5-x2k8p container api: ImagePullBackOff",
    });
  });

  it("a ReplicaSet declared on its own is failed at once by its own pod in ImagePullBackOff", async () => {
    const h = engineHarness();
    const controlled = replicaSet(rollingOut(0), { name: "worker-5d8f7", revision: "1", replicas: 1, ready: 0 });
    const bare: KubeObject = { ...controlled, metadata: { ...controlled.metadata, name: "worker", ownerReferences: [] } };
    await put(h, bare);
    const id = await h.start(observationRequest({ resources: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "worker" }] }));
    await put(h, pod({ name: "worker-x2k8p", owner: bare, phase: "Pending", containers: [imagePullBackOff()] }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff", resource: { kind: "ReplicaSet", name: "worker" } } });
  });

  it("a ReplicationController is failed at once by its own pod in ImagePullBackOff", async () => {
    const h = engineHarness();
    // ReplicationController is served by /api/v1 as any core kind; the harness serves it on request.
    h.cluster.discovery("v1", [{ name: "replicationcontrollers", kind: "ReplicationController", namespaced: true }]);
    h.cluster.serve({ apiVersion: "v1", group: "", version: "v1", kind: "ReplicationController", resource: "replicationcontrollers", namespaced: true, kindKey: "core/ReplicationController" });
    const shape = replicaSet(rollingOut(0), { name: "legacy", revision: "1", replicas: 1, ready: 0 });
    const controller: KubeObject = {
      ...shape,
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { ...shape.metadata, uid: uidOf("replicationcontroller/legacy"), annotations: {}, ownerReferences: [] },
    };
    await put(h, controller);
    const id = await h.start(observationRequest({ resources: [{ apiVersion: "v1", kind: "ReplicationController", name: "legacy" }] }));
    expect(h.events.of(id).filter((event) => event.type === "verdict")).toEqual([]);
    await put(h, pod({ name: "legacy-x2k8p", owner: controller, phase: "Pending", containers: [imagePullBackOff()] }));
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      failure: { reason: "ImagePullBackOff", resource: { kind: "ReplicationController", name: "legacy" } },
    });
  });

  it("a custom kind that happens to be called Pod is not taken for the workload's pod", async () => {
    const h = engineHarness();
    h.cluster.customKind("sandbox.example.com/v1", { name: "pods", kind: "Pod", namespaced: true });
    const rs = replicaSet(deployment({ replicas: 2 }), { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
    // Its controller is our ReplicaSet, and its status carries a reason a pod the kubelet gave up on would.
    const sandbox = apiObject<KubeObject>({
      apiVersion: "sandbox.example.com/v1",
      kind: "Pod",
      metadata: {
        name: "api-sandbox",
        namespace: "payments",
        uid: uidOf("sandbox/api-sandbox"),
        generation: 1,
        ownerReferences: [controllerRef(rs)],
      },
      status: { observedGeneration: 1, phase: "Running", reason: "InvalidImageName", conditions: [condition("Ready", "True", "Provisioned")] },
    });
    await put(h, rollingOut(1), rs);
    const id = await h.start(observationRequest({ resources: [{ apiVersion: "sandbox.example.com/v1", kind: "Pod", name: "api-sandbox" }, api] }));
    await put(h, sandbox, deployment({ replicas: 2 }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", resources: [{ state: "settled" }, { state: "settled" }] });
  });
});

describe("Jobs", () => {
  const migratePod = (job: KubeObject, state: "running" | "failed") =>
    pod({
      name: "schema-migrate-8q2lw",
      owner: job,
      phase: state === "running" ? "Running" : "Failed",
      containers: [
        state === "running"
          ? running("migrate")
          : terminated("migrate", { exitCode: 1, reason: "Error", message: 'Error: relation "users" already exists' }),
      ],
    });

  it("a failing bootstrap Job fails bootstrapped with its last pod's termination message", async () => {
    const h = engineHarness();
    const active = job({ status: { active: 1, ready: 1, startTime: "2026-11-29T10:00:05Z" } });
    await put(h, rollingOut(0), active, migratePod(active, "running"));
    const id = await h.start(observationRequest({ require: "bootstrapped", resources: [migrate, api] }));
    expect(h.events.lines(id)).toEqual(["stage applied"]);

    await put(h, migratePod(active, "failed"));
    await put(
      h,
      job({
        status: {
          failed: 1,
          startTime: "2026-11-29T10:00:05Z",
          conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit"),
        },
      }),
    );
    expect(h.events.lines(id).slice(1)).toEqual(["progress Job payments/schema-migrate failed BackoffLimitExceeded", "verdict failed"]);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      reached: "applied",
      failure: { stage: "bootstrapped", reason: "BackoffLimitExceeded", resource: { ...migrate, namespace: "payments" } },
      message:
        "deployment payments cannot reach bootstrapped: Job payments/schema-migrate: failed: BackoffLimitExceeded: " +
        'Job has reached the specified backoff limit; pod schema-migrate-8q2lw container migrate: Error: Error: relation "users" already exists',
    });
  });

  it("a bootstrap Job that had failed before the first observation of Jobs began still carries its pod's termination message", async () => {
    // Every informer is new (as in local mode): the Job's replay must not be judged before its pods are indexed.
    const h = engineHarness();
    const failed = job({
      status: { failed: 1, startTime: "2026-11-29T10:00:05Z", conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") },
    });
    await put(h, failed, migratePod(failed, "failed"));
    const id = await h.start(observationRequest({ require: "bootstrapped", resources: [migrate] }));
    expect(h.events.verdict(id).failure?.message).toBe('Job has reached the specified backoff limit; pod schema-migrate-8q2lw container migrate: Error: Error: relation "users" already exists');
  });

  it("a failed Job's verdict carries its pod's termination message when the pods' list takes several slices to apply", async () => {
    // The pods' list, longer than a slice, is still being applied when the Jobs' list comes: the
    // hub's one queue applies the Job behind every pod, so the Job is judged with its pod indexed.
    const stepped = new SteppedSlicing(2);
    const h = engineHarness({ slicing: stepped.slicing });
    const failed = job({
      status: { failed: 1, startTime: "2026-11-29T10:00:05Z", conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") },
    });
    const others = Array.from({ length: 6 }, (_, i) => pod({ name: `worker-${i}` }));
    await put(h, failed, ...others, migratePod(failed, "failed"));
    const id = await h.start(observationRequest({ require: "bootstrapped", resources: [migrate] }));
    while (stepped.drain() > 0) await drainMicrotasks();
    expect(h.events.verdict(id).failure?.message).toBe('Job has reached the specified backoff limit; pod schema-migrate-8q2lw container migrate: Error: Error: relation "users" already exists');
  });

  it("announces bootstrapped when the bootstrap Job completes, and a Job deleted by its TTL afterwards still counts", async () => {
    const h = engineHarness();
    const active = job({ ttlSecondsAfterFinished: 0, status: { active: 1, ready: 1, startTime: "2026-11-29T10:00:05Z" } });
    const rs = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 0 });
    await put(h, rollingOut(0), rs, active, migratePod(active, "running"));
    const id = await h.start(observationRequest({ resources: [migrate, api] }));

    const complete = job({
      ttlSecondsAfterFinished: 0,
      status: { succeeded: 1, startTime: "2026-11-29T10:00:05Z", completionTime: "2026-11-29T10:00:41Z", conditions: jobConditions.complete() },
    });
    await put(h, complete);
    h.cluster.delete(complete);
    expect(h.events.lines(id)).toEqual(["stage applied", "progress Job payments/schema-migrate settled", "stage bootstrapped"]);
    expect((await h.engine.get(id))?.reached).toBe("bootstrapped");

    await put(h, deployment({ replicas: 2 }));
    expect(h.events.lines(id).slice(3)).toEqual(["progress Deployment payments/api settled", "stage healthy", "verdict succeeded"]);
    expect(h.events.verdict(id).resources.map((r) => `${r.identity.kind} ${r.state} ${r.message}`)).toEqual([
      "Job settled 1/1 completions",
      "Deployment settled 2/2 replicas ready, 2 updated",
    ]);
  });
});

describe("events and routing", () => {
  it("publishes a progress event only when a resource's state or reason changes", async () => {
    const h = engineHarness();
    const rs = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 1, ready: 0 });
    await put(h, rollingOut(0, { replicas: 1 }), rs);
    const id = await h.start(observationRequest());
    const crashing = (restarts: number) =>
      pod({
        name: "api-7f9c6d8b5-x2k8p",
        owner: rs,
        containers: [
          waiting("api", "CrashLoopBackOff", "back-off 5m0s restarting failed container=api pod=api-7f9c6d8b5-x2k8p", {
            restartCount: restarts,
            lastTerminated: { exitCode: 1, reason: "Error", startedAt: "2026-11-29T10:00:20Z", finishedAt: "2026-11-29T10:00:21Z" },
          }),
        ],
      });
    // The kubelet rewrites the pod on every restart and back-off; CrashLoopBackOff is not in failOn by default.
    for (let restarts = 1; restarts <= 12; restarts++) await put(h, crashing(restarts));
    expect(h.events.lines(id)).toEqual(["stage applied", "stage bootstrapped", "progress Deployment payments/api pending CrashLoopBackOff"]);
    expect((await h.engine.get(id))?.resources[0]?.message).toBe(
      "0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p container api: CrashLoopBackOff: last exit Error with code 1",
    );
  });

  it("a settled resource is no longer read: later changes to it change nothing", async () => {
    const h = engineHarness();
    const active = job({ status: { active: 1, ready: 1, startTime: "2026-11-29T10:00:05Z" } });
    const rs = replicaSet(deployment({ replicas: 2 }), { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
    await put(h, deployment({ replicas: 2 }), rs, active);
    const id = await h.start(observationRequest({ resources: [{ ...migrate, bootstrap: false }, api] }));
    expect(h.events.lines(id)).toEqual(["progress Deployment payments/api settled", "stage applied", "stage bootstrapped"]);

    // After it settled, a pod of the current ReplicaSet breaks and the Deployment reports it.
    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: rs, phase: "Pending", containers: [imagePullBackOff()] }));
    await put(h, rollingOut(1));
    expect(h.events.lines(id)).toHaveLength(3);

    await put(
      h,
      job({
        status: { succeeded: 1, startTime: "2026-11-29T10:00:05Z", completionTime: "2026-11-29T10:00:41Z", conditions: jobConditions.complete() },
      }),
    );
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "succeeded",
      resources: [{ state: "settled" }, { state: "settled", message: "2/2 replicas ready, 2 updated" }],
    });
  });

  it("shares one list and one watch per kind among every observation", async () => {
    const h = engineHarness();
    const names = ["api", "worker", "ledger", "gateway", "billing"];
    for (const name of names) await put(h, rollingOut(0, { name }), job({ name: `${name}-migrate`, status: { active: 1 } }));
    for (const name of names) {
      await h.start(
        observationRequest({
          key: `ci-4812/${name}`,
          resources: [
            { apiVersion: "apps/v1", kind: "Deployment", name },
            { apiVersion: "batch/v1", kind: "Job", name: `${name}-migrate` },
          ],
        }),
      );
    }
    expect(h.engine.activeCount).toBe(5);
    const watched = h.transport.watches().map((watch) => watch.request.path);
    expect(watched.toSorted()).toEqual(["/api/v1/events", "/api/v1/events", "/api/v1/pods", "/apis/apps/v1/deployments", "/apis/apps/v1/replicasets", "/apis/batch/v1/jobs"]);
    // The events watches ask for warnings, and for cluster-autoscaler's Normal events.
    const events = h.transport.watches().filter((watch) => watch.request.path === "/api/v1/events");
    expect(events.map((watch) => watch.request.query?.fieldSelector)).toEqual(["type=Warning", "type=Normal,source=cluster-autoscaler"]);
    expect(h.transport.gets().map((get) => get.path).toSorted()).toEqual(watched.toSorted());
  });

  it("an observation started after the informers synced reads their caches at once", async () => {
    const h = engineHarness();
    const rs = replicaSet(deployment({ name: "worker", replicas: 2 }), { name: "worker-7f9c6d8b5", revision: "4", replicas: 2 });
    await put(h, rollingOut(0), deployment({ name: "worker", replicas: 2 }), rs, pod({ name: "worker-7f9c6d8b5-k2m9x", owner: rs }));
    await h.start(observationRequest());
    const requests = h.transport.requests.length;

    const worker = { apiVersion: "apps/v1", kind: "Deployment", name: "worker" };
    const id = await h.start(observationRequest({ key: "ci-4812/worker", resources: [worker] }));
    expect(h.events.lines(id)).toEqual([
      "progress Deployment payments/worker settled",
      "stage applied",
      "stage bootstrapped",
      "stage healthy",
      "verdict succeeded",
    ]);
    expect(h.transport.requests).toHaveLength(requests);
  });

  it("follows a custom kind found through discovery, decided by its Ready condition", async () => {
    const h = engineHarness();
    h.cluster.customKind("example.com/v1", { name: "widgets", kind: "Widget", namespaced: true });
    const widget = (ready: ReturnType<typeof condition>, observedGeneration = 3): KubeObject => ({
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "blue", namespace: "payments", uid: uidOf("widget/blue"), generation: 3, creationTimestamp: "2026-11-29T09:58:12Z" },
      spec: { size: "large" },
      status: { observedGeneration, conditions: [ready] },
    });
    await put(h, widget(condition("Ready", "False", "Provisioning", "waiting for the volume to attach")));
    const id = await h.start(observationRequest({ resources: [{ apiVersion: "example.com/v1", kind: "Widget", name: "blue" }] }));
    expect(h.events.lines(id)).toEqual(["progress Widget payments/blue pending Provisioning", "stage applied", "stage bootstrapped"]);

    await put(h, widget(condition("Ready", "True", "Provisioned", "the widget is serving")));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", resources: [{ state: "settled" }] });
    expect(h.transport.gets("/apis/example.com/v1")).toHaveLength(1);
  });
});

describe("what the watches do not promise", () => {
  it("joins a pod that arrives before its ReplicaSet once the ReplicaSet arrives (no order across kinds)", async () => {
    const h = engineHarness();
    // Revision 5 begins: the Deployment is rewritten, and the pod watch beats the ReplicaSet watch.
    const rollout = rollingOut(0, { revision: "5", replicas: 1, old: 1 });
    const oldRs = replicaSet(rollout, { name: "api-6b8d9c7f4", revision: "4", replicas: 1 });
    await put(h, rollout, oldRs, pod({ name: "api-6b8d9c7f4-m4k7d", owner: oldRs, containers: [running("api")] }));
    const id = await h.start(observationRequest());
    const newRs = replicaSet(rollout, { name: "api-7f9c6d8b5", revision: "5", replicas: 1, ready: 0 });
    const badTag = waiting(
      "api",
      "InvalidImageName",
      'Failed to apply default image tag "ghcr.io/acme/payments-api:1.4.4@": invalid reference format',
    );
    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: newRs, phase: "Pending", containers: [badTag] }));
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");

    await put(h, newRs);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      failure: { reason: "InvalidImageName" },
      message: expect.stringContaining("pod api-7f9c6d8b5-x2k8p container api: InvalidImageName: Failed to apply default image tag"),
    });
  });

  it("reads what changed during a watch gap from the relist after 410 Gone", async () => {
    const h = engineHarness();
    const rs = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
    await put(h, rollingOut(0), rs);
    const id = await h.start(observationRequest());
    await h.advance(60_000);

    // The watch expires; while the informer is away the rollout completes.
    h.transport.currentWatch("/apis/apps/v1/deployments").status(410, "Expired", "too old resource version: 48003 (48290)");
    await put(h, deployment({ replicas: 2 }));
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(0);
    expect(h.transport.gets("/apis/apps/v1/deployments")).toHaveLength(2);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", decidedAt: "2026-11-29T10:01:00.000Z" });
  });
});

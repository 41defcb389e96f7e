/**
 * failOn reasons with a grace (issue 35) against the real control plane: the real kube-scheduler
 * finding no kwok node with the CPU a pod asks for, a kwok Node with enough added within the grace;
 * crash loops written through `/status` as the kubelet writes them (kwok plays no kubelet for the
 * `Scripted` fault), one that recovers and one that does not; the real ReplicaSet controller refused
 * by a ResourceQuota, and the quota raised within the grace. Each failure comes from the engine's
 * own timer at the grace's end, after a pending reading that said how long of how long.
 */
import { CoreV1Api, type V1ContainerStatus, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservationEvent, ResourceVerdict } from "../../src/verdicts/contract/schemas.js";
import { kubeJson } from "../cluster/kubeJson.ts";
import { kwokNode } from "../cluster/kwokNode.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig } from "./support/cluster.js";
import { deployment, type Declared } from "./support/manifests.js";
import { apply, collect, nextReading, observeInOwnNamespace, observeRequest, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("graces", (file) => ({ stagewatch, namespace } = file));

const readings = (events: readonly ObservationEvent[]): ResourceVerdict[] => events.flatMap((event) => (event.type === "progress" ? [event.resource] : []));

async function observe(declared: Declared, failOn: NonNullable<Parameters<typeof observeRequest>[0]["failOn"]>) {
  return stagewatch.observer.observe(observeRequest({ deployment: declared.identity.name, resources: [declared.identity], failOn, timeoutSeconds: 240, stallSeconds: 0 }));
}

describe("a pod asking for more CPU than any node has (kwok nodes have 64)", () => {
  // Only the test's pods tolerate it: nothing else lands on the node the test adds.
  const taint = "stagewatch.io/e2e-graces";
  const nodeName = `graces-${process.pid}`;

  afterAll(async () => {
    await core.deleteNode({ name: nodeName }).catch(() => undefined);
  });

  it("is pending with the scheduler's words, then failed when FailedScheduling:20s has held", async () => {
    const huge = deployment({ namespace, name: "huge", replicas: 1, cpu: "100" });
    const run = await observe(huge, [{ reason: "FailedScheduling", graceSeconds: 20 }]);
    await apply(kc, huge.manifest);
    const { events, verdict } = await collect(run);

    const pending = readings(events).find((reading) => reading.reason === "Unschedulable");
    expect(pending?.state).toBe("pending");
    expect(pending?.message).toMatch(/^Unschedulable for \d+s of 20s; 0\/1 replicas ready.*: Unschedulable: 0\/\d+ nodes are available: .*Insufficient cpu/);
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "Unschedulable", resource: huge.identity } });
    expect(verdict.failure?.message).toMatch(/^Unschedulable held for 20s, its grace; .*0\/\d+ nodes are available: .*Insufficient cpu/);
  });

  it("succeeds when a node with enough CPU joins within the grace", async () => {
    const big = deployment({ namespace, name: "big", replicas: 1, cpu: "100", tolerates: [taint] });
    const run = await observe(big, [{ reason: "FailedScheduling", graceSeconds: 20 }]);
    await apply(kc, big.manifest);
    const unplaced = await nextReading(run.progress[Symbol.asyncIterator](), (reading) => reading.reason === "Unschedulable");
    expect(unplaced.message).toMatch(/^Unschedulable for \d+s of 20s; /);
    await core.createNode({ body: kwokNode(nodeName, { cpu: "128", taints: [{ key: taint, value: "true", effect: "NoSchedule" }] }) });
    expect(await run.verdict).toMatchObject({ outcome: "succeeded" });
  });
});

describe("a crash loop, CrashLoopBackOff:30s", () => {
  const crashLoop = [{ reason: "CrashLoopBackOff", graceSeconds: 30 }];
  const seconds = (date: Date) => date.toISOString().replace(/\.\d+Z$/, "Z");

  /** The Deployment's one pod, once the scheduler placed it (kwok writes nothing for the Scripted fault). */
  async function scheduledPod(app: string): Promise<V1Pod> {
    return eventually(`${app}'s pod scheduled`, async () => {
      const [pod] = (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items;
      return pod?.spec?.nodeName ? pod : undefined;
    });
  }

  /**
   * What the kubelet writes to `/status` as the container crashes, waits and restarts: Ready and
   * ContainersReady False since the loop began (they stay so through its restarts), or True once
   * the container runs and is ready.
   */
  async function kubeletWrites(pod: V1Pod, container: V1ContainerStatus, notReadySince: string | undefined): Promise<void> {
    const path = `/api/v1/namespaces/${namespace}/pods/${pod.metadata!.name}`;
    const current = (await kubeJson(kc, "GET", path)) as V1Pod;
    const now = seconds(new Date());
    const ready = notReadySince === undefined;
    const readiness = (type: string) => ({
      type,
      status: ready ? "True" : "False",
      lastTransitionTime: notReadySince ?? now,
      ...(!ready && { reason: "ContainersNotReady", message: `containers with unready status: [${container.name}]` }),
    });
    const status = {
      phase: "Running",
      conditions: [
        { type: "PodReadyToStartContainers", status: "True", lastTransitionTime: now },
        { type: "Initialized", status: "True", lastTransitionTime: now },
        readiness("Ready"),
        readiness("ContainersReady"),
        ...(current.status?.conditions ?? []).filter((condition) => condition.type === "PodScheduled"),
      ],
      hostIP: "10.0.0.1",
      podIP: "10.244.0.9",
      startTime: current.status?.startTime ?? now,
      containerStatuses: [container],
    };
    await kubeJson(kc, "PUT", `${path}/status`, { ...current, status });
  }

  const image = (app: string) => `registry.example/${app}:1`;
  const lastExit = { terminated: { exitCode: 1, reason: "Error", startedAt: new Date(), finishedAt: new Date() } };
  const backingOff = (app: string, restartCount: number): V1ContainerStatus => ({
    name: app,
    image: image(app),
    imageID: "",
    ready: false,
    started: false,
    restartCount,
    lastState: lastExit,
    state: { waiting: { reason: "CrashLoopBackOff", message: `back-off ${10 * 2 ** (restartCount - 1)}s restarting failed container=${app}` } },
  });
  const running = (app: string, restartCount: number, ready: boolean): V1ContainerStatus => ({
    name: app,
    image: image(app),
    imageID: `${image(app).split(":")[0]}@sha256:9b2f6c1e0d8a7b4c3e5f1a2d6c8b0e4f7a9d3c5b1e2f4a6c8d0b2e4f6a8c1d3e`,
    ready,
    started: true,
    restartCount,
    lastState: lastExit,
    state: { running: { startedAt: new Date() } },
  });

  it("succeeds when the pod crashes twice, then runs", async () => {
    const flaky = deployment({ namespace, name: "flaky", replicas: 1, fault: Fault.Scripted });
    const run = await observe(flaky, crashLoop);
    await apply(kc, flaky.manifest);
    const pod = await scheduledPod("flaky");
    const loopBegan = seconds(new Date());
    const progress = run.progress[Symbol.asyncIterator]();

    await kubeletWrites(pod, backingOff("flaky", 1), loopBegan);
    const first = await nextReading(progress, (reading) => reading.reason === "CrashLoopBackOff");
    expect(first).toMatchObject({ state: "pending", message: expect.stringMatching(/^CrashLoopBackOff for \d+s of 30s \(restarts 1\); /) });
    await kubeletWrites(pod, running("flaky", 1, false), loopBegan);
    await kubeletWrites(pod, backingOff("flaky", 2), loopBegan);
    await nextReading(progress, (reading) => reading.reason === "CrashLoopBackOff" && reading.message?.includes("(restarts 2)") === true);
    await kubeletWrites(pod, running("flaky", 2, true), undefined);

    expect(await run.verdict).toMatchObject({ outcome: "succeeded" });
  });

  it("fails when the grace ends with the pod still crashing, naming its restarts", async () => {
    const broken = deployment({ namespace, name: "broken", replicas: 1, fault: Fault.Scripted });
    const run = await observe(broken, crashLoop);
    await apply(kc, broken.manifest);
    const pod = await scheduledPod("broken");
    const loopBegan = seconds(new Date());
    let decided = false;
    const verdict = run.verdict.finally(() => (decided = true));
    // The kubelet's back-off, shortened: a restart every few seconds until the verdict.
    for (let restarts = 1; !decided; restarts += 1) {
      await kubeletWrites(pod, running("broken", restarts - 1, false), loopBegan);
      await kubeletWrites(pod, backingOff("broken", restarts), loopBegan);
      await Promise.race([verdict, new Promise((resolve) => setTimeout(resolve, 4_000))]);
    }
    const { events } = await collect(run);

    const first = readings(events).find((reading) => reading.reason === "CrashLoopBackOff");
    expect(first?.state).toBe("pending");
    expect(await verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "CrashLoopBackOff", resource: broken.identity } });
    expect((await verdict).failure?.message).toMatch(/^CrashLoopBackOff held for 30s, its grace \(restarts \d+\); 0\/1 replicas ready.*container broken: CrashLoopBackOff: last exit Error with code 1/);
  });
});

describe("a ResourceQuota too small for the Deployment, FailedCreate:20s", () => {
  let quotaNamespace: string;
  const quota = { name: "compute", spec: (cpu: string) => ({ hard: { "requests.cpu": cpu, "limits.cpu": cpu } }) };

  beforeAll(async () => {
    quotaNamespace = await createNamespace("graces-quota");
    await core.createNamespacedResourceQuota({ namespace: quotaNamespace, body: { metadata: { name: quota.name }, spec: quota.spec("1") } });
    // Admission refuses pods against a quota only once the quota controller has written its usage.
    await eventually("quota status", async () => ((await core.readNamespacedResourceQuota({ name: quota.name, namespace: quotaNamespace })).status?.used ? true : undefined));
  });

  afterAll(async () => {
    if (quotaNamespace) await deleteNamespace(quotaNamespace);
  });

  const refused = (name: string) => deployment({ namespace: quotaNamespace, name, replicas: 1, cpu: "2" });
  const withinGrace = (reading: ResourceVerdict) => reading.state === "pending" && reading.message?.startsWith("FailedCreate for ") === true;

  it("fails once the refusal has kept repeating for the grace", async () => {
    const api = refused("api");
    const run = await observe(api, [{ reason: "FailedCreate", graceSeconds: 20 }]);
    await apply(kc, api.manifest);
    const { events, verdict } = await collect(run);

    const pending = readings(events).find(withinGrace);
    expect(pending?.message).toMatch(/^FailedCreate for \d+s of 20s; .*ReplicaSet api-[a-z0-9]+: FailedCreate( \(x\d+\))?: .*exceeded quota: compute/);
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "FailedCreate", resource: api.identity } });
    expect(verdict.failure?.message).toMatch(/^FailedCreate held for 20s, its grace; .*exceeded quota: compute/);
  });

  it("succeeds when the quota is raised within the grace", async () => {
    const worker = refused("worker");
    const run = await observe(worker, [{ reason: "FailedCreate", graceSeconds: 20 }]);
    await apply(kc, worker.manifest);
    await nextReading(run.progress[Symbol.asyncIterator](), withinGrace);
    await core.replaceNamespacedResourceQuota({ name: quota.name, namespace: quotaNamespace, body: { metadata: { name: quota.name }, spec: quota.spec("10") } });
    expect(await run.verdict).toMatchObject({ outcome: "succeeded" });
  });
});

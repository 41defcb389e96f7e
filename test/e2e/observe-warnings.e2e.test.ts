/**
 * What a status cannot say, against the real control plane: Warning events from the real
 * ReplicaSet controller (a ResourceQuota refusing pods), the real scheduler (no node fits) and a
 * kubelet's FailedMount (written through the API as the kubelet writes it: kwok mounts nothing),
 * shown in progress events and verdicts; failOn naming an event's reason makes it terminal; and a
 * rollout that stops moving announces `stalled` once, then still succeeds when it moves again.
 */
import { AppsV1Api, CoreV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ObservationEvent, ResourceVerdict } from "../../src/verdicts/contract/schemas.js";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig } from "./support/cluster.js";
import { kubeletWarning } from "./support/events.js";
import { deployment } from "./support/manifests.js";
import { apply, collect, nextReading, observeRequest, observeInOwnNamespace, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("warnings", (file) => ({ stagewatch, namespace } = file));

/** A Deployment whose one container requests `cpu`. */
const requesting = (name: string, cpu: string) => deployment({ namespace, name, replicas: 1, cpu });

const warningOf = (reason: string) => (reading: ResourceVerdict) => reading.warning?.reason === reason;

/** A Deployment whose pod runs but never gets ready (kwok), applied, then observed. */
async function observeNeverReady(name: string, stallSeconds: number) {
  const declared = deployment({ namespace, name, replicas: 1, fault: Fault.NeverReady });
  await apply(kc, declared.manifest);
  const run = await stagewatch.observer.observe(observeRequest({ deployment: name, resources: [declared.identity], timeoutSeconds: 300, stallSeconds }));
  return { identity: declared.identity, run };
}

describe("a ResourceQuota too small for the Deployment", () => {
  let quotaNamespace: string;

  beforeAll(async () => {
    quotaNamespace = await createNamespace("warnings-quota");
    await core.createNamespacedResourceQuota({
      namespace: quotaNamespace,
      body: { metadata: { name: "compute" }, spec: { hard: { "requests.cpu": "1", "limits.cpu": "1" } } },
    });
    // Admission refuses pods against a quota only once the quota controller has written its usage.
    await eventually("quota status", async () => ((await core.readNamespacedResourceQuota({ name: "compute", namespace: quotaNamespace })).status?.used ? true : undefined));
  });

  afterAll(async () => {
    if (quotaNamespace) await deleteNamespace(quotaNamespace);
  });

  const inQuotaNamespace = (name: string) => {
    const declared = requesting(name, "2");
    declared.manifest.metadata.namespace = quotaNamespace;
    return { manifest: declared.manifest, identity: { ...declared.identity, namespace: quotaNamespace } };
  };

  it("shows the ReplicaSet's FailedCreate with the quota's words while pending and in the timeout", async () => {
    const api = inQuotaNamespace("api");
    await apply(kc, api.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "quota", resources: [api.identity], timeoutSeconds: 20, stallSeconds: 0 }));
    const { events, verdict } = await collect(run);

    const warned = events.find((event): event is Extract<ObservationEvent, { type: "progress" }> => event.type === "progress" && event.resource.warning !== undefined);
    expect(warned?.resource.warning).toMatchObject({ kind: "ReplicaSet", reason: "FailedCreate" });
    expect(warned?.resource.warning?.message).toMatch(/is forbidden: exceeded quota: compute, requested: .*cpu=2.*limited: .*cpu=1/);
    // A repeat of the same warning changes its count, never publishes the same text again: after
    // the progress event that brought FailedCreate, one carrying it again was published for a change
    // of the reading itself. The Deployment's own ReplicaFailure condition (reason FailedCreate) can
    // reach the service after the ReplicaSet's warning did, on a loaded machine.
    const readings = events.flatMap((event) => (event.type === "progress" ? [event.resource] : []));
    const carrying = readings.flatMap((reading, index) => (reading.warning?.reason === "FailedCreate" ? [{ reading, previous: readings[index - 1] }] : []));
    expect(carrying.length).toBeGreaterThanOrEqual(1);
    for (const { reading, previous } of carrying.slice(1)) {
      expect([reading.state, reading.reason]).not.toEqual([previous?.state, previous?.reason]);
    }

    console.info(`quota timeout: ${verdict.message}`);
    expect(verdict.outcome).toBe("timed_out");
    expect(verdict.message).toMatch(
      new RegExp(`^deployment quota did not reach healthy within 20s: Deployment ${quotaNamespace}/api: 0/1 replicas ready.*; ReplicaSet api-[a-z0-9]+: FailedCreate( \\(x\\d+\\))?: .*exceeded quota: compute`),
    );
  });

  it("fails at once when failOn names FailedCreate", async () => {
    const worker = inQuotaNamespace("worker");
    const run = await stagewatch.observer.observe(
      observeRequest({ deployment: "quota-strict", resources: [worker.identity], timeoutSeconds: 300, failOn: ["ImagePullBackOff", "FailedCreate"] }),
    );
    await apply(kc, worker.manifest);
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "FailedCreate", resource: worker.identity } });
    expect(verdict.failure?.message).toContain("exceeded quota: compute");
    expect(Date.parse(verdict.decidedAt!) - Date.parse(verdict.startedAt)).toBeLessThan(60_000);
  });
});

describe("a pod no node can fit", () => {
  it("shows the scheduler's FailedScheduling", async () => {
    const huge = requesting("huge", "5000");
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "huge", resources: [huge.identity], timeoutSeconds: 120, stallSeconds: 0 }));
    await apply(kc, huge.manifest);
    const progress = run.progress[Symbol.asyncIterator]();
    const reading = await nextReading(progress, warningOf("FailedScheduling"));
    expect(reading.warning).toMatchObject({ kind: "Pod", reason: "FailedScheduling" });
    expect(reading.message).toMatch(/; Pod huge-[a-z0-9]+-[a-z0-9]+: FailedScheduling( \(x\d+\))?: 0\/\d+ nodes are available: .*Insufficient cpu/);
    await stagewatch.observer.cancel(run.observationId, "seen");
  });
});

describe("a pod whose volume names a missing ConfigMap", () => {
  it("shows the kubelet's FailedMount, reached from the pod through its ReplicaSet", async () => {
    const { run } = await observeNeverReady("web", 0);
    const pod = await eventually("the web pod", async () => (await core.listNamespacedPod({ namespace, labelSelector: "app=web" })).items[0]);
    const message = 'MountVolume.SetUp failed for volume "config" : configmap "web-config" not found';
    // What the kubelet's recorder writes for a mount that fails (kwok mounts nothing).
    await core.createNamespacedEvent({ namespace, body: kubeletWarning(pod, { reason: "FailedMount", message }) });
    const reading = await nextReading(run.progress[Symbol.asyncIterator](), warningOf("FailedMount"));
    expect(reading.message).toContain(`; Pod ${pod.metadata!.name}: FailedMount: ${message}`);
    await stagewatch.observer.cancel(run.observationId, "seen");
  });
});

describe("a rollout that stops moving", () => {
  it("announces stalled once, and still succeeds when it moves again", async () => {
    const { identity, run } = await observeNeverReady("stuck", 3);
    const events: ObservationEvent[] = [];
    const collected = (async () => {
      for await (const event of run.progress) events.push(event);
    })();
    const stalls = () => events.filter((event) => event.type === "stalled");
    await eventually("a stall notice", async () => (stalls().length > 0 ? true : undefined));
    // Three more stall periods with nothing moving: still one notice.
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    expect(stalls()).toHaveLength(1);
    expect(stalls()[0]).toMatchObject({ waitingFor: [{ identity, state: "pending" }] });

    // The fix rolls out: a template without the fault.
    const healthy = deployment({ namespace, name: "stuck", replicas: 1 });
    await apply(kc, healthy.manifest);
    const verdict = await run.verdict;
    await collected;
    expect(verdict.outcome).toBe("succeeded");
    expect((await apps.readNamespacedDeployment({ name: "stuck", namespace })).status?.readyReplicas).toBe(1);
  });
});

/**
 * The scheduler's and autoscaler's evidence (issue 35) against the real control plane:
 * - a pod no kwok node can take (a nodeSelector none matches), placed by nobody: the real
 *   kube-scheduler writes PodScheduled=False; the test writes cluster-autoscaler's events on it as
 *   its recorder does (Normal, source.component cluster-autoscaler): TriggeredScaleUp keeps the
 *   rollout pending past FailedScheduling's grace, then NotTriggerScaleUp fails it after its own;
 * - a claim on a StorageClass that does not exist, mounted by the Deployment's pods: the real PV
 *   controller (persistentvolume-binder-controller runs in the local control plane) writes
 *   ProvisioningFailed on the claim, and the rollout fails after ProvisioningFailed's grace with
 *   the claim named.
 */
import { CoreV1Api, type CoreV1Event, type V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { ObservationEvent, ResourceVerdict } from "../../src/verdicts/contract/schemas.js";
import { eventually, kubeConfig } from "./support/cluster.js";
import { deployment, type Declared } from "./support/manifests.js";
import { apply, collect, nextReading, observeInOwnNamespace, observeRequest, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("evidence", (file) => ({ stagewatch, namespace } = file));

const readings = (events: readonly ObservationEvent[]): ResourceVerdict[] => events.flatMap((event) => (event.type === "progress" ? [event.resource] : []));

async function observe(declared: Declared, failOn: NonNullable<Parameters<typeof observeRequest>[0]["failOn"]>) {
  return stagewatch.observer.observe(observeRequest({ deployment: declared.identity.name, resources: [declared.identity], failOn, timeoutSeconds: 240, stallSeconds: 0 }));
}

/** The Deployment's one pod once the scheduler has said it cannot place it. */
async function unplacedPod(app: string): Promise<V1Pod> {
  return eventually(`${app}'s pod unschedulable`, async () => {
    const [pod] = (await core.listNamespacedPod({ namespace, labelSelector: `app=${app}` })).items;
    return pod?.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "False") ? pod : undefined;
  });
}

/** An event as cluster-autoscaler's recorder (client-go's legacy EventRecorder) writes it about a pod. */
function autoscalerEvent(pod: V1Pod, reason: "TriggeredScaleUp" | "NotTriggerScaleUp", message: string): CoreV1Event {
  const now = new Date();
  return {
    metadata: { name: `${pod.metadata!.name}.${now.getTime().toString(16)}`, namespace: pod.metadata!.namespace! },
    involvedObject: { apiVersion: "v1", kind: "Pod", namespace: pod.metadata!.namespace!, name: pod.metadata!.name!, uid: pod.metadata!.uid!, resourceVersion: pod.metadata!.resourceVersion! },
    reason,
    message,
    source: { component: "cluster-autoscaler" },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    type: "Normal",
    reportingComponent: "cluster-autoscaler",
    reportingInstance: "",
  };
}

describe("cluster-autoscaler's events on a pod no node matches", () => {
  it("TriggeredScaleUp keeps it pending past FailedScheduling's grace, naming the scale-up; NotTriggerScaleUp fails it after its own grace", async () => {
    const pool = { "node.stagewatch.io/pool": `gpu-${process.pid}` };
    const unfit = deployment({ namespace, name: "unfit", replicas: 1, nodeSelector: pool });
    const run = await observe(unfit, [
      { reason: "FailedScheduling", graceSeconds: 10 },
      { reason: "NotTriggerScaleUp", graceSeconds: 15 },
    ]);
    await apply(kc, unfit.manifest);
    const pod = await unplacedPod("unfit");
    const name = pod.metadata!.name!;
    const progress = run.progress[Symbol.asyncIterator]();
    const scaleUp = "pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]";
    await core.createNamespacedEvent({ namespace, body: autoscalerEvent(pod, "TriggeredScaleUp", scaleUp) });
    const inProgress = await nextReading(progress, (reading) => reading.reason === "TriggeredScaleUp");
    expect(inProgress).toMatchObject({ state: "pending", message: expect.stringContaining(`scale-up triggered for pod ${name}: ${scaleUp}; 0/1 replicas ready`) });

    // FailedScheduling's grace counts from PodScheduled's lastTransitionTime: wait until it is over.
    const unplacedSince = Date.parse(String(pod.status!.conditions!.find((c) => c.type === "PodScheduled")!.lastTransitionTime));
    const graceOver = unplacedSince + 10_000 + 2_000;
    await eventually("FailedScheduling's grace over", async () => (Date.now() > graceOver ? true : undefined), { timeoutMs: 30_000, intervalMs: 500 });
    const decided = await Promise.race([run.verdict.then(() => "decided"), new Promise((resolve) => setImmediate(() => resolve("in progress")))]);
    expect(decided).toBe("in progress");

    const noScaleUp = "pod didn't trigger scale-up: 1 node(s) didn't match Pod's node affinity/selector, 2 max node group size reached";
    await core.createNamespacedEvent({ namespace, body: autoscalerEvent(pod, "NotTriggerScaleUp", noScaleUp) });
    const noNode = await nextReading(progress, (reading) => reading.reason === "NotTriggerScaleUp");
    expect(noNode).toMatchObject({ state: "pending", message: expect.stringMatching(new RegExp(`^NotTriggerScaleUp for \\d+s of 15s; no node group can fit pod ${name}: `)) });
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "NotTriggerScaleUp", resource: unfit.identity } });
    expect(verdict.failure?.message).toContain(`NotTriggerScaleUp held for 15s, its grace; no node group can fit pod ${name}: ${noScaleUp}`);
    // The scheduler's own words stay beside the autoscaler's.
    expect(verdict.failure?.message).toMatch(/Unschedulable: 0\/\d+ nodes are available: .*didn't match Pod's node affinity\/selector/);

    // The real API server selects events by source: the feed's second watch carries the
    // autoscaler's two and none of the controllers' Normal events (ScalingReplicaSet, SuccessfulCreate).
    const selected = async (fieldSelector: string) => (await core.listNamespacedEvent({ namespace, fieldSelector })).items.map((event) => event.reason);
    expect((await selected("type=Normal,source=cluster-autoscaler")).toSorted()).toEqual(["NotTriggerScaleUp", "TriggeredScaleUp"]);
    expect(await selected("type=Normal")).toEqual(expect.arrayContaining(["ScalingReplicaSet", "SuccessfulCreate", "TriggeredScaleUp"]));
  });
});

describe("a claim on a StorageClass that does not exist, mounted by the new pods", () => {
  it("is named in the pending text and the failure once ProvisioningFailed:20s has held (the real PV controller's events)", async () => {
    const storageClassName = `no-such-class-${process.pid}`;
    await core.createNamespacedPersistentVolumeClaim({
      namespace,
      body: { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], storageClassName, resources: { requests: { storage: "1Gi" } } } },
    });
    const stateful = deployment({ namespace, name: "stateful", replicas: 1, claims: ["data"] });
    const run = await observe(stateful, [{ reason: "ProvisioningFailed", graceSeconds: 20 }]);
    await apply(kc, stateful.manifest);
    const { events, verdict } = await collect(run);

    const notFound = `storageclass.storage.k8s.io "${storageClassName}" not found`;
    // The claim's warning may come before the Deployment controller's first status: it is the pods', whatever the Deployment says yet.
    const pending = readings(events).find((reading) => reading.reason === "ProvisioningFailed");
    expect(pending).toMatchObject({
      state: "pending",
      message: expect.stringMatching(/^ProvisioningFailed for \d+s of 20s; /),
      warning: { kind: "PersistentVolumeClaim", name: "data", reason: "ProvisioningFailed", message: notFound },
    });
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "ProvisioningFailed", resource: stateful.identity } });
    expect(verdict.failure?.message).toMatch(/^ProvisioningFailed held for 20s, its grace; 0\/1 replicas ready.*pod has unbound immediate PersistentVolumeClaims/);
    expect(verdict.message).toContain(`PersistentVolumeClaim data: ProvisioningFailed`);
    expect(verdict.message).toContain(notFound);
  });
});

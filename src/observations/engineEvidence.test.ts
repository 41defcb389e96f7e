// The scheduler's and autoscaler's evidence through the engine (issue 35), on virtual time:
// cluster-autoscaler's Normal events on an unplaced pod (TriggeredScaleUp holding a FailedScheduling
// grace open, NotTriggerScaleUp failing after its own), and a claim the pod mounts that cannot be
// provisioned (ProvisioningFailed on the PersistentVolumeClaim, joined by the pod's volumes).
import { describe, expect, it } from "vitest";
import type { ObservationRequestInput } from "../verdicts/index.js";
import { captured } from "../../test/fixtures/kube/captured.js";
import { autoscalerEvent, legacyWarning, seriesWarning } from "../../test/fixtures/kube/events.js";
import { uidOf } from "../../test/fixtures/kube/meta.js";
import { pod, running } from "../../test/fixtures/kube/pods.js";
import { replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { quietWriteIntervalMs } from "./records/recordWriter.js";
import { engineHarness, type EngineHarness, observationRequest, putObjects as put } from "./testing/index.js";

const api = rollingOutDeployment({ replicas: 1, updated: 1, ready: 0 });
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 1, ready: 0 });
const at = (seconds: number) => new Date(Date.parse("2026-11-29T10:00:00Z") + seconds * 1000).toISOString().replace(".000Z", "Z");

const noMatchingNode = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
const unplaced = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", unschedulable: noMatchingNode, since: at(0) });
const placed = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, containers: [running("api")] });
const scaleUp = "pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]";
const noScaleUp = "pod didn't trigger scale-up: 1 node(s) didn't match Pod's node affinity/selector, 2 max node group size reached";
const triggered = (seconds: number) => autoscalerEvent(unplaced, { reason: "TriggeredScaleUp", message: scaleUp, lastTimestamp: at(seconds) });
const notTriggered = (seconds: number) => autoscalerEvent(unplaced, { reason: "NotTriggerScaleUp", message: noScaleUp, lastTimestamp: at(seconds) });

async function observe(h: EngineHarness, failOn: ObservationRequestInput["failOn"]): Promise<string> {
  await put(h, api, current);
  return h.start(observationRequest({ failOn, stallSeconds: 0, timeoutSeconds: 600 }));
}

async function resourceOf(h: EngineHarness, id: string) {
  return (await h.engine.get(id))!.resources[0]!;
}

const schedulingFor20s: ObservationRequestInput["failOn"] = ["ImagePullBackOff", { reason: "FailedScheduling", graceSeconds: 20 }];
const andNoScaleUpFor30s: ObservationRequestInput["failOn"] = [...schedulingFor20s!, { reason: "NotTriggerScaleUp", graceSeconds: 30 }];

describe("cluster-autoscaler's word on an unplaced pod", () => {
  it("TriggeredScaleUp keeps it pending past the scheduler's grace, saying so; the node comes and the rollout succeeds", async () => {
    const h = engineHarness();
    const id = await observe(h, schedulingFor20s);
    await put(h, unplaced);
    expect((await resourceOf(h, id)).message).toMatch(/^Unschedulable for 0s of 20s; /);
    await h.advance(5_000);
    await put(h, triggered(5));
    expect(await resourceOf(h, id)).toMatchObject({
      state: "pending",
      reason: "TriggeredScaleUp",
      message: `scale-up triggered for pod api-7f9c6d8b5-x2k8p: ${scaleUp}; 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p: Unschedulable: ${noMatchingNode}`,
    });
    await h.advance(120_000);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
    // The new node registers tainted not-ready: the scheduler says so again, newer than the autoscaler's word.
    const notReady = "0/4 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 3 node(s) didn't match Pod's node affinity/selector.";
    await put(h, seriesWarning(unplaced, { reason: "FailedScheduling", message: notReady, eventTime: `${at(130)}.412907Z`.replace("Z.", ".") }));
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "TriggeredScaleUp" });
    await put(h, placed, rollingOutDeployment({ replicas: 1, updated: 1, ready: 1 }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded" });
  });

  it("NotTriggerScaleUp fails it once its own grace has held, naming the pod and the autoscaler's words; not a moment before", async () => {
    const h = engineHarness();
    const id = await observe(h, andNoScaleUpFor30s);
    await put(h, unplaced, triggered(2));
    await h.advance(60_000);
    await put(h, notTriggered(60));
    expect(await resourceOf(h, id)).toMatchObject({
      state: "pending",
      reason: "NotTriggerScaleUp",
      message: `NotTriggerScaleUp for 0s of 30s; no node group can fit pod api-7f9c6d8b5-x2k8p: ${noScaleUp}; 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p: Unschedulable: ${noMatchingNode}`,
    });
    // Not repeated: the autoscaler writes a reason about a pod at most once in five minutes.
    await h.advance(29_999);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      decidedAt: "2026-11-29T10:01:30.000Z",
      failure: { stage: "healthy", reason: "NotTriggerScaleUp" },
    });
    expect(h.events.verdict(id)!.failure!.message).toBe(
      `NotTriggerScaleUp held for 30s, its grace; no node group can fit pod api-7f9c6d8b5-x2k8p: ${noScaleUp}; 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p: Unschedulable: ${noMatchingNode}`,
    );
  });

  it("a scale-up triggered within NotTriggerScaleUp's grace holds the rollout open again", async () => {
    const h = engineHarness();
    const id = await observe(h, andNoScaleUpFor30s);
    await put(h, unplaced, notTriggered(1));
    await h.advance(20_000);
    await put(h, triggered(21));
    await h.advance(60_000);
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "TriggeredScaleUp" });
  });

  it("without NotTriggerScaleUp in failOn, its words join the scheduler's reading, whose grace decides", async () => {
    const h = engineHarness();
    const id = await observe(h, schedulingFor20s);
    await put(h, unplaced);
    await h.advance(10_000);
    await put(h, notTriggered(10));
    // Only the message changed: stored within the record writer's quiet interval.
    await h.advance(quietWriteIntervalMs);
    expect(await resourceOf(h, id)).toMatchObject({
      state: "pending",
      reason: "Unschedulable",
      message: `Unschedulable for 10s of 20s; no node group can fit pod api-7f9c6d8b5-x2k8p: ${noScaleUp}; 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p: Unschedulable: ${noMatchingNode}`,
    });
    await h.advance(10_000 - quietWriteIntervalMs);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "Unschedulable" }, decidedAt: "2026-11-29T10:00:20.000Z" });
    expect(h.events.verdict(id)!.failure!.message).toContain(`no node group can fit pod api-7f9c6d8b5-x2k8p: ${noScaleUp}`);
  });

  it("a word about a pod now placed is history: the pod pulling its image reads as itself", async () => {
    const h = engineHarness();
    const id = await observe(h, schedulingFor20s);
    await put(h, unplaced, triggered(1));
    await h.advance(40_000);
    const pulling = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", containers: [{ ...running("api", { ready: false }), state: { waiting: { reason: "ContainerCreating" } } }] });
    await put(h, pulling);
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "ContainerCreating" });
  });
});

describe("a claim the new pods mount that cannot be provisioned", () => {
  // Pending on a StorageClass that does not exist, as the local cluster's PV controller left one.
  const base = captured("pvc-pending");
  const claim = { ...base, metadata: { ...base.metadata, name: "data", namespace: "payments", uid: uidOf("pvc/data") } };
  const unboundClaims = "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  const waiting = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", unschedulable: unboundClaims, since: at(0), claims: ["data"] });
  const classMissing = 'storageclass.storage.k8s.io "no-such-class" not found';
  // The PV controller's claim resync: every 15 s, the count going up.
  const provisioningFailed = (count: number, seconds: number) =>
    legacyWarning(claim, { reason: "ProvisioningFailed", message: classMissing, count, firstTimestamp: at(0), lastTimestamp: at(seconds), component: "persistentvolume-controller" });

  it("shows the claim's warning as soon as it comes, with the claim's name, and fails after ProvisioningFailed's grace while it repeats", async () => {
    const h = engineHarness();
    const id = await observe(h, ["ImagePullBackOff", { reason: "ProvisioningFailed", graceSeconds: 40 }]);
    await put(h, waiting);
    await h.advance(1_000);
    // No pod event after this: the claim's warning alone reads the Deployment again.
    await put(h, provisioningFailed(1, 1));
    expect(await resourceOf(h, id)).toMatchObject({
      state: "pending",
      reason: "ProvisioningFailed",
      message: `ProvisioningFailed for 0s of 40s; 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p: Unschedulable: ${unboundClaims}; PersistentVolumeClaim data: ProvisioningFailed: ${classMissing}`,
      warning: { kind: "PersistentVolumeClaim", name: "data", reason: "ProvisioningFailed", message: classMissing },
    });
    for (let seconds = 16; seconds <= 46; seconds += 15) {
      await h.advance(15_000);
      await put(h, provisioningFailed(1 + (seconds - 1) / 15, seconds));
    }
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "ProvisioningFailed" }, decidedAt: "2026-11-29T10:00:41.000Z" });
    expect(h.events.verdict(id)!.message).toContain(`PersistentVolumeClaim data: ProvisioningFailed (x3): ${classMissing}`);
  });

  it("a warning about a claim of the same name in another namespace is not the pod's", async () => {
    const h = engineHarness();
    const id = await observe(h, ["ImagePullBackOff", { reason: "ProvisioningFailed", graceSeconds: 40 }]);
    await put(h, waiting);
    const elsewhere = { ...claim, metadata: { ...claim.metadata, namespace: "billing", uid: uidOf("pvc/billing/data") } };
    await put(h, legacyWarning(elsewhere, { reason: "ProvisioningFailed", message: classMissing, lastTimestamp: at(1), component: "persistentvolume-controller" }));
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "Unschedulable" });
    expect((await resourceOf(h, id)).warning).toBeUndefined();
  });
});

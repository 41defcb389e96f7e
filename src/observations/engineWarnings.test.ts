// Warning events through the engine: the one shared watch of type=Warning events (a scripted API
// server, on virtual time), routed by UID to the observations reading the object, its ReplicaSets
// or its pods; shown, never terminal unless failOn names the reason, never progress.
import { describe, expect, it } from "vitest";
import { legacyWarning, seriesWarning } from "../../test/fixtures/kube/events.js";
import { pod, waiting } from "../../test/fixtures/kube/pods.js";
import { deploymentConditions, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { quietWriteIntervalMs } from "./records/recordWriter.js";
import { engineHarness, observationRequest, type EngineHarness, putObjects as put } from "./testing/index.js";

const quota = 'Error creating: pods "api-7f9c6d8b5-x2k8p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1';

/** A rollout the quota stops: the new ReplicaSet exists, none of its pods could be created. */
const api = rollingOutDeployment({ replicas: 3, updated: 0, ready: 0 });
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 3, ready: 0 });
const at = (seconds: number) => new Date(Date.parse("2026-11-29T10:00:00Z") + seconds * 1000).toISOString().replace(".000Z", "Z");
const failedCreate = (count: number, seconds: number) => legacyWarning(current, { reason: "FailedCreate", message: quota, count, lastTimestamp: at(seconds) });

async function blockedRollout(h: EngineHarness, overrides: Parameters<typeof observationRequest>[0] = {}): Promise<string> {
  await put(h, api, current);
  return h.start(observationRequest(overrides));
}

describe("Warning events", () => {
  it("show the ReplicaSet's FailedCreate after the Deployment's reading; a repeat changes the count and publishes nothing", async () => {
    const h = engineHarness();
    const id = await blockedRollout(h, { stallSeconds: 0 });
    await h.advance(3_000);
    await put(h, failedCreate(1, 3));
    await h.advance(20_000);
    await put(h, failedCreate(4, 23));

    expect(h.events.lines(id)).toEqual([
      "stage applied",
      "stage bootstrapped",
      "progress Deployment payments/api pending (warning FailedCreate)",
    ]);
    // A count alone is no change a client must see at once: get shows it after the quiet write.
    expect((await h.engine.get(id))!.resources[0]!.warning?.count).toBe(1);
    await h.advance(quietWriteIntervalMs);
    const [resource] = (await h.engine.get(id))!.resources;
    expect(resource).toMatchObject({
      state: "pending",
      message: `0/3 replicas ready, 0 updated; ReplicaSet api-7f9c6d8b5: FailedCreate (x4): ${quota}`,
      warning: { kind: "ReplicaSet", name: "api-7f9c6d8b5", reason: "FailedCreate", count: 4, lastSeen: "2026-11-29T10:00:23.000Z" },
    });

    await h.advance(300_000);
    const verdict = h.events.verdict(id);
    expect(verdict.outcome).toBe("timed_out");
    expect(verdict.message).toBe(`deployment payments did not reach healthy within 5m0s: Deployment payments/api: 0/3 replicas ready, 0 updated; ReplicaSet api-7f9c6d8b5: FailedCreate (x4): ${quota}`);
  });

  it("the Deployment's own ReplicaFailure arriving after the warning is progress of its own, carrying the warning; a repeat after it is not", async () => {
    // The order a loaded cluster can show (observe-warnings.e2e): the ReplicaSet controller's event
    // reaches the service before the Deployment controller copied the ReplicaSet's condition up.
    const h = engineHarness();
    const id = await blockedRollout(h, { stallSeconds: 0 });
    await put(h, failedCreate(1, 1));
    const refused = { ...api, status: { ...api.status, conditions: [...(api.status?.conditions ?? []), deploymentConditions.replicaFailure(quota)] } };
    await put(h, refused);
    await put(h, failedCreate(2, 5));

    expect(h.events.lines(id)).toEqual([
      "stage applied",
      "stage bootstrapped",
      "progress Deployment payments/api pending (warning FailedCreate)",
      "progress Deployment payments/api pending FailedCreate (warning FailedCreate)",
    ]);
  });

  it("fail the observation at once when failOn names the reason", async () => {
    const h = engineHarness();
    const id = await blockedRollout(h, { failOn: ["ImagePullBackOff", "FailedCreate"] });
    await put(h, failedCreate(1, 0));
    const verdict = h.events.verdict(id);
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "FailedCreate" } });
    expect(verdict.message).toBe(
      `deployment payments cannot reach healthy: Deployment payments/api: failed: FailedCreate: 0/3 replicas ready, 0 updated; ReplicaSet api-7f9c6d8b5: FailedCreate: ${quota}`,
    );
  });

  it("reach the Deployment from a pod's FailedScheduling (the scheduler's events.k8s.io series)", async () => {
    const h = engineHarness();
    const unschedulable = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", containers: [waiting("api", "ContainerCreating")], unschedulable: "0/3 nodes are available: 3 Insufficient cpu." });
    await put(h, unschedulable);
    const id = await blockedRollout(h, { stallSeconds: 0 });
    const message = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    await put(h, seriesWarning(unschedulable, { reason: "FailedScheduling", message, eventTime: "2026-11-29T10:00:00.418263Z" }));
    const [resource] = (await h.engine.get(id))!.resources;
    expect(resource?.warning).toMatchObject({ kind: "Pod", name: "api-7f9c6d8b5-x2k8p", reason: "FailedScheduling", count: 1 });
    expect(resource?.message).toContain(`Pod api-7f9c6d8b5-x2k8p: FailedScheduling: ${message}`);
  });

  it("from before the observation began (less a minute's slack) are not its news", async () => {
    const h = engineHarness();
    await put(h, legacyWarning(current, { reason: "FailedCreate", message: quota, count: 9, lastTimestamp: "2026-11-29T09:40:00Z" }));
    const id = await blockedRollout(h);
    await h.advance(1_000);
    expect((await h.engine.get(id))!.resources[0]?.warning).toBeUndefined();
  });

  it("repeating are no progress: the stall notice still comes", async () => {
    const h = engineHarness();
    const id = await blockedRollout(h, { stallSeconds: 60, timeoutSeconds: 600 });
    for (let seconds = 10; seconds <= 50; seconds += 20) {
      await h.advance(seconds === 10 ? 10_000 : 20_000);
      await put(h, failedCreate(seconds, seconds));
    }
    // The warning is news (one progress event) but not progress: the quiet time counts from the start.
    await h.advance(9_000);
    expect(h.events.lines(id).filter((line) => line.startsWith("stalled"))).toEqual([]);
    await h.advance(1_000);
    expect(h.events.lines(id).filter((line) => line.startsWith("stalled"))).toEqual(["stalled Deployment payments/api"]);
  });

  it("count only when written in the object's own namespace: another namespace's event naming the pod's UID neither fails nor shows", async () => {
    // The attack: anyone who may create Events in their own namespace (team-b) and can see a UID
    // of payments' writes an ImagePullBackOff naming it; the API server only checks that the
    // event's involvedObject.namespace is team-b.
    const h = engineHarness();
    const pulling = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", containers: [waiting("api", "ContainerCreating")] });
    await put(h, pulling);
    const id = await blockedRollout(h, { stallSeconds: 0, failOn: ["ImagePullBackOff"] });
    const message = 'Back-off pulling image "registry.example/api:v2"; rotate the registry token at https://evil.example/login';
    for (const about of [
      { ...pulling, metadata: { ...pulling.metadata, namespace: "team-b" } },
      { ...pulling, metadata: { ...pulling.metadata, namespace: "team-b", name: "anything" } },
    ]) {
      await put(h, legacyWarning(about, { reason: "ImagePullBackOff", message, lastTimestamp: at(1), component: "kubelet", suffix: about.metadata.name }));
    }
    await h.advance(1_000);
    expect(h.events.lines(id).some((line) => line.startsWith("verdict"))).toBe(false);
    expect((await h.engine.get(id))!.resources[0]).toMatchObject({ state: "pending" });
    expect((await h.engine.get(id))!.resources[0]?.warning).toBeUndefined();

    await put(h, legacyWarning(pulling, { reason: "ImagePullBackOff", message: 'Back-off pulling image "registry.example/api:v2"', lastTimestamp: at(2), component: "kubelet" }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff" } });
    expect(h.events.verdict(id).message).not.toContain("evil.example");
  });

  it("are not read at all with --warning-events=false", async () => {
    const h = engineHarness({ warningEvents: false });
    const id = await blockedRollout(h);
    await put(h, failedCreate(1, 0));
    expect((await h.engine.get(id))!.resources[0]?.warning).toBeUndefined();
    expect(h.transport.requests.some((request) => request.path.includes("/events"))).toBe(false);
  });
});

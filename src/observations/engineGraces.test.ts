// failOn reasons with a grace (issue 35) through the engine, on virtual time: pending within the
// grace with the reading saying so, failed at its end by the engine's own timer (no event needed),
// a new clock when the pod recovered in between, the clock running across a crash loop's
// restarts, and Warning events holding only while they repeat.
import { describe, expect, it } from "vitest";
import type { ObservationRequestInput } from "../verdicts/index.js";
import { legacyWarning } from "../../test/fixtures/kube/events.js";
import { pod, running, waiting } from "../../test/fixtures/kube/pods.js";
import { replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { quietWriteIntervalMs } from "./records/recordWriter.js";
import { engineHarness, observationRequest, type EngineHarness, putObjects as put } from "./testing/index.js";

const api = rollingOutDeployment({ replicas: 1, updated: 1, ready: 0 });
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 1, ready: 0 });
const at = (seconds: number) => new Date(Date.parse("2026-11-29T10:00:00Z") + seconds * 1000).toISOString().replace(".000Z", "Z");
const lastExit = { exitCode: 1, reason: "Error", startedAt: at(0), finishedAt: at(1) };

/** The new pod crash-looping, its Ready condition False since `notReadySince` seconds into the observation. */
const crashLooping = (restartCount: number, notReadySince: number) =>
  pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, containers: [waiting("api", "CrashLoopBackOff", "back-off 40s restarting failed container=api", { restartCount, lastTerminated: lastExit })], since: at(notReadySince) });
/** Between two crashes: the container runs again, not ready, Ready still False since the loop began. */
const restarted = (restartCount: number, notReadySince: number) =>
  pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, containers: [running("api", { ready: false, restartCount, lastTerminated: lastExit })], since: at(notReadySince) });
const recovered = (restartCount: number) => pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, containers: [running("api", { restartCount })] });

const quota = 'Error creating: pods "api-7f9c6d8b5-x2k8p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1';
const failedCreate = (count: number, seconds: number) => legacyWarning(current, { reason: "FailedCreate", message: quota, count, firstTimestamp: at(0), lastTimestamp: at(seconds) });

async function observe(h: EngineHarness, failOn: ObservationRequestInput["failOn"]): Promise<string> {
  await put(h, api, current);
  return h.start(observationRequest({ failOn, stallSeconds: 0, timeoutSeconds: 600 }));
}

const crashLoopFor2m: ObservationRequestInput["failOn"] = ["ImagePullBackOff", { reason: "CrashLoopBackOff", graceSeconds: 120 }];

async function resourceOf(h: EngineHarness, id: string) {
  return (await h.engine.get(id))!.resources[0]!;
}

describe("a failOn reason with a grace", () => {
  it("is pending within the grace, saying for how long of how long and the restarts; the engine's timer fails it at the grace's end", async () => {
    const h = engineHarness();
    const id = await observe(h, crashLoopFor2m);
    await h.advance(40_000);
    await put(h, crashLooping(3, 0));
    expect(await resourceOf(h, id)).toMatchObject({
      state: "pending",
      reason: "CrashLoopBackOff",
      message: "CrashLoopBackOff for 40s of 2m0s (restarts 3); 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p container api: CrashLoopBackOff: last exit Error with code 1",
    });

    await h.advance(79_999);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      decidedAt: "2026-11-29T10:02:00.000Z",
      failure: { stage: "healthy", reason: "CrashLoopBackOff" },
      message:
        "deployment payments cannot reach healthy: Deployment payments/api: failed: CrashLoopBackOff: CrashLoopBackOff held for 2m0s, its grace (restarts 3); 0/1 replicas ready, 1 updated; pod api-7f9c6d8b5-x2k8p container api: CrashLoopBackOff: last exit Error with code 1",
    });
  });

  it("counts from when the pod's Ready turned False, by the cluster's clock: a pod crash-looping for longer than the grace fails at first sight", async () => {
    const h = engineHarness({ startAt: at(300) });
    const id = await observe(h, crashLoopFor2m);
    await put(h, crashLooping(7, 100));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "CrashLoopBackOff" }, decidedAt: at(300).replace("Z", ".000Z") });
  });

  it("runs across a crash loop's restarts: the container running again, not ready, does not start a new clock", async () => {
    const h = engineHarness();
    const id = await observe(h, crashLoopFor2m);
    await h.advance(10_000);
    await put(h, crashLooping(1, 0));
    await h.advance(20_000);
    await put(h, restarted(1, 0));
    expect((await resourceOf(h, id)).reason).toBe("ContainersNotReady");
    await h.advance(30_000);
    await put(h, crashLooping(2, 0));
    expect((await resourceOf(h, id)).message).toMatch(/^CrashLoopBackOff for 1m0s of 2m0s \(restarts 2\)/);
    await h.advance(60_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", decidedAt: "2026-11-29T10:02:00.000Z" });
  });

  it("starts a new clock when the pod recovered (Ready turned True) and crashed again", async () => {
    const h = engineHarness();
    const id = await observe(h, crashLoopFor2m);
    await put(h, crashLooping(1, 0));
    await h.advance(60_000);
    await put(h, recovered(2));
    await h.advance(30_000);
    await put(h, crashLooping(3, 90));
    expect((await resourceOf(h, id)).message).toMatch(/^CrashLoopBackOff for 0s of 2m0s \(restarts 3\)/);
    await h.advance(119_999);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", decidedAt: "2026-11-29T10:03:30.000Z" });
  });

  it("ends without a failure when the reason clears within the grace", async () => {
    const h = engineHarness();
    const id = await observe(h, crashLoopFor2m);
    await put(h, crashLooping(2, 0));
    await h.advance(119_000);
    await put(h, recovered(2), rollingOutDeployment({ replicas: 1, updated: 1, ready: 1 }));
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded" });
  });

  it("keeps a plain reason terminal at once beside graced ones, even on a pod that sorts after a crash-looping one", async () => {
    const h = engineHarness();
    const id = await observe(h, crashLoopFor2m);
    const pulling = pod({ name: "api-7f9c6d8b5-z9q4w", owner: current, phase: "Pending", containers: [waiting("api", "ImagePullBackOff", "Back-off pulling image")], since: at(0) });
    await put(h, crashLooping(2, 0), pulling);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff" }, decidedAt: "2026-11-29T10:00:00.000Z" });
    expect(h.events.verdict(id).failure?.message).toContain("pod api-7f9c6d8b5-z9q4w container api: ImagePullBackOff");
  });

  it("FailedScheduling's grace holds on the pod's PodScheduled=False/Unschedulable, which the scheduler writes beside the event", async () => {
    const h = engineHarness();
    const id = await observe(h, [{ reason: "FailedScheduling", graceSeconds: 20 }]);
    const message = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", containers: [], unschedulable: message, since: at(0) }));
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "Unschedulable", message: expect.stringMatching(/^Unschedulable for 0s of 20s; /) });
    await h.advance(19_999);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "Unschedulable", message: expect.stringContaining(message) } });
  });
});

describe("a Warning event's grace", () => {
  it("fails at the grace's end when the event kept repeating", async () => {
    const h = engineHarness();
    const id = await observe(h, [{ reason: "FailedCreate", graceSeconds: 20 }]);
    await h.advance(1_000);
    await put(h, failedCreate(1, 1));
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "FailedCreate", message: expect.stringMatching(/^FailedCreate for 0s of 20s; /) });
    await h.advance(9_000);
    await put(h, failedCreate(5, 10));
    await h.advance(10_999);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "FailedCreate" }, decidedAt: "2026-11-29T10:00:21.000Z" });
    expect(h.events.verdict(id).message).toContain(`FailedCreate held for 20s, its grace; 0/1 replicas ready, 1 updated; ReplicaSet api-7f9c6d8b5: FailedCreate (x5): ${quota}`);
  });

  it("does not fail when the event stopped repeating: shown, pending, until the budget", async () => {
    const h = engineHarness();
    const id = await observe(h, [{ reason: "FailedCreate", graceSeconds: 20 }]);
    await h.advance(1_000);
    await put(h, failedCreate(1, 1));
    // A message that changes alone reaches get with the record's next quiet write.
    await h.advance(20_000 + quietWriteIntervalMs);
    expect(await resourceOf(h, id)).toMatchObject({ state: "pending", reason: "FailedCreate", message: expect.stringMatching(/^FailedCreate not repeated for 20s; /) });
    await h.advance(600_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "timed_out" });
  });
});

describe("the service's failOn (serve --fail-on)", () => {
  const serviceFailOn = ["ImagePullBackOff", { reason: "CrashLoopBackOff", graceSeconds: 120 }] as const;

  it("is the failOn of a request that names none, kept in the record an adopter reads", async () => {
    const h = engineHarness({ failOn: serviceFailOn });
    const id = await observe(h, undefined);
    expect((await h.records.getRecord(id))?.record.request.failOn).toEqual(serviceFailOn);
    await put(h, crashLooping(3, 0));
    await h.advance(120_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "failed", failure: { reason: "CrashLoopBackOff" }, decidedAt: "2026-11-29T10:02:00.000Z" });
  });

  it("may be tightened by a request: more reasons, a shorter grace", async () => {
    const h = engineHarness({ failOn: serviceFailOn });
    const result = await h.observe(observationRequest({ failOn: ["ImagePullBackOff", "InvalidImageName", { reason: "CrashLoopBackOff", graceSeconds: 30 }] }));
    expect(result).toMatchObject({ ok: true });
  });

  it("may not be loosened: a reason left out or a longer grace is refused, naming the field", async () => {
    const h = engineHarness({ failOn: serviceFailOn });
    const result = await h.observe(observationRequest({ failOn: [{ reason: "CrashLoopBackOff", graceSeconds: 600 }] }));
    expect(result).toEqual({
      ok: false,
      code: "invalid_request",
      message: "failOn looser than the service allows",
      issues: [
        { path: "failOn", message: "must name ImagePullBackOff: the service's failOn has ImagePullBackOff (serve --fail-on); a request may shorten a grace or add reasons, not loosen them" },
        {
          path: "failOn[0].graceSeconds",
          message: "at most 120 seconds for CrashLoopBackOff: the service's failOn has CrashLoopBackOff:2m0s (serve --fail-on); a request may shorten a grace or add reasons, not loosen them",
        },
      ],
    });
  });

  it("without serve --fail-on, a request replaces the built-in default freely, as before graces", async () => {
    const h = engineHarness();
    const id = await observe(h, []);
    await put(h, pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, phase: "Pending", containers: [waiting("api", "ImagePullBackOff", "Back-off pulling image")], since: at(0) }));
    await h.advance(1_000);
    expect((await h.engine.get(id))!.outcome).toBe("in_progress");
  });
});

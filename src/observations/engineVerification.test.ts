// The verification window (`require: verified`) through the engine, on virtual time: a scripted API
// server rolls `api` out 20 s in, then the test writes the pods as the kubelet would (a restart
// with its lastState, Ready turning False, an eviction, a probe's Warning) and moves the clock
// over the window's end and the budget's.
import { describe, expect, it } from "vitest";
import type { ContainerStatus } from "../kube/objects.js";
import { legacyWarning } from "../../test/fixtures/kube/events.js";
import { pod, running, type PodOptions } from "../../test/fixtures/kube/pods.js";
import { deployment, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import type { ObservationRequestInput } from "../verdicts/index.js";
import { engineHarness, observationRequest, putObjects as put } from "./testing/index.js";

const rolling = rollingOutDeployment({ replicas: 2, ready: 0 });
const rolledOut = deployment({ replicas: 2 });
const current = replicaSet(rolledOut, { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 2 });
const at = (seconds: number) => new Date(Date.parse("2026-11-29T10:00:00Z") + seconds * 1000).toISOString().replace(".000Z", "Z");
const names = ["api-7f9c6d8b5-x2k8p", "api-7f9c6d8b5-q7w4d"] as const;
const apiPod = (name: string, containers: ContainerStatus[] = [running("api")], extra: Partial<PodOptions> = {}) => pod({ name, owner: current, containers, ...extra });

const verifiedRequest = (overrides: Partial<ObservationRequestInput> = {}) =>
  observationRequest({ require: "verified", verify: { windowSeconds: 60 }, stallSeconds: 0, ...overrides });

/** `api` rolling out with its pods not ready, healthy 20 s in: the window opens at 10:00:20. */
async function healthyAfterTwentySeconds(overrides: Partial<ObservationRequestInput> = {}) {
  const h = engineHarness();
  await put(h, rolling, current, ...names.map((name) => apiPod(name, [running("api", { ready: false })])));
  const id = await h.start(verifiedRequest(overrides));
  await h.advance(20_000);
  await put(h, rolledOut, ...names.map((name) => apiPod(name)));
  return { h, id };
}

describe("the verification window", () => {
  it("reaches verified when the window ends with no problem, not a moment before", async () => {
    const { h, id } = await healthyAfterTwentySeconds();
    expect(h.events.lines(id)).toEqual(["progress Deployment payments/api pending ContainersNotReady", "stage applied", "stage bootstrapped", "progress Deployment payments/api settled", "stage healthy"]);
    // What a client's live view counts down from, with the stage event.
    expect((await h.engine.get(id))?.verification).toMatchObject({ windowSeconds: 60, startedAt: "2026-11-29T10:00:20.000Z", endsAt: "2026-11-29T10:01:20.000Z" });

    await h.advance(59_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.lines(id).slice(-2)).toEqual(["stage verified", "verdict succeeded"]);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "succeeded",
      required: "verified",
      reached: "verified",
      decidedAt: "2026-11-29T10:01:20.000Z",
      verification: { windowSeconds: 60, startedAt: "2026-11-29T10:00:20.000Z", endsAt: "2026-11-29T10:01:20.000Z", pods: [...names].toSorted() },
      message:
        "deployment payments reached verified: held 1m0s after healthy; 2 pods read (api-7f9c6d8b5-q7w4d, api-7f9c6d8b5-x2k8p): " +
        "no restart, readiness flap, OOMKilled or Error termination, eviction or Warning (BackOff, Unhealthy, Evicted)",
    });
  });

  it("fails at once on a container restarted after healthy, naming pod, container, reason and when", async () => {
    const { h, id } = await healthyAfterTwentySeconds();
    await h.advance(30_000);
    const oomKilled = { exitCode: 137, reason: "OOMKilled", startedAt: at(5), finishedAt: at(45) };
    await put(h, apiPod(names[0], [running("api", { restartCount: 1, lastTerminated: oomKilled })]));

    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      reached: "healthy",
      message: "deployment payments cannot reach verified: pod api-7f9c6d8b5-x2k8p container api restarted (OOMKilled, exit code 137) 25s after healthy",
      failure: { stage: "verified", reason: "OOMKilled", resource: { kind: "Deployment", name: "api" } },
      decidedAt: "2026-11-29T10:00:50.000Z",
    });
  });

  it("a restart that finished just before healthy does not count", async () => {
    const h = engineHarness();
    const crashed = { exitCode: 1, reason: "Error", startedAt: at(5), finishedAt: at(19) };
    await put(h, rolling, current, ...names.map((name) => apiPod(name, [running("api", { ready: false })])));
    const id = await h.start(verifiedRequest());
    await h.advance(20_000);
    await put(h, rolledOut, apiPod(names[0], [running("api", { restartCount: 1, lastTerminated: crashed })]), apiPod(names[1]));
    // The kubelet writes the same status again during the window: still the restart of before.
    await h.advance(30_000);
    await put(h, apiPod(names[0], [running("api", { restartCount: 1, lastTerminated: { ...crashed, message: "exit 1" } })]));
    await h.advance(30_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", reached: "verified" });
  });

  it("fails on a readiness flap (Ready True -> False)", async () => {
    const { h, id } = await healthyAfterTwentySeconds();
    await h.advance(40_000);
    await put(h, apiPod(names[1], [running("api", { ready: false })]));
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      message: "deployment payments cannot reach verified: pod api-7f9c6d8b5-q7w4d readiness flapped (Ready True -> False, ContainersNotReady) 40s after healthy",
      failure: { stage: "verified", reason: "ContainersNotReady" },
    });
  });

  it("fails on a Warning the request's verify.failOn names, not on one it does not", async () => {
    const { h, id } = await healthyAfterTwentySeconds({ verify: { windowSeconds: 60, failOn: ["Unhealthy"] } });
    const probe = "Readiness probe failed: HTTP probe failed with statuscode: 503";
    await h.advance(5_000);
    await put(h, legacyWarning(apiPod(names[0]), { reason: "BackOff", message: "Back-off restarting failed container api", lastTimestamp: at(25), component: "kubelet" }));
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(5_000);
    await put(h, legacyWarning(apiPod(names[0]), { reason: "Unhealthy", message: probe, lastTimestamp: at(30), component: "kubelet", suffix: "188d2b" }));
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      message: `deployment payments cannot reach verified: pod api-7f9c6d8b5-x2k8p had Warning Unhealthy: ${probe} 10s after healthy`,
      failure: { stage: "verified", reason: "Unhealthy" },
    });
  });

  it("fails on an eviction", async () => {
    const { h, id } = await healthyAfterTwentySeconds();
    await h.advance(10_000);
    const evicted = apiPod(names[0], [running("api", { ready: false })], { phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory." });
    await put(h, evicted);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      message: "deployment payments cannot reach verified: pod api-7f9c6d8b5-x2k8p was evicted (Evicted: The node was low on resource: memory.) 10s after healthy",
      failure: { stage: "verified", reason: "Evicted" },
    });
  });

  it("times out naming the stage and the checks' last values when the budget ends inside the window", async () => {
    const { h, id } = await healthyAfterTwentySeconds({ timeoutSeconds: 70 });
    await h.advance(49_999);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    await h.advance(1);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "timed_out",
      reached: "healthy",
      message:
        "deployment payments did not reach verified within 1m10s: the verification window ran 50s of 1m0s after healthy; " +
        "2 pods read (api-7f9c6d8b5-q7w4d, api-7f9c6d8b5-x2k8p): no restart, readiness flap, OOMKilled or Error termination, eviction or Warning (BackOff, Unhealthy, Evicted) so far",
      failure: { stage: "verified", reason: "VerificationWindowOpen", resource: { kind: "Deployment", name: "api" } },
      decidedAt: "2026-11-29T10:01:10.000Z",
    });
  });

  it("a window ending with the budget loses to it", async () => {
    const { h, id } = await healthyAfterTwentySeconds({ timeoutSeconds: 80 });
    await h.advance(60_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "timed_out", failure: { stage: "verified" }, decidedAt: "2026-11-29T10:01:20.000Z" });
  });

  it("a failure before healthy fails healthy, as without a window", async () => {
    const h = engineHarness();
    await put(h, rolling, current, apiPod(names[0], [running("api", { ready: false })]));
    const id = await h.start(verifiedRequest({ timeoutSeconds: 100 }));
    await h.advance(100_000);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "timed_out", reached: "bootstrapped", failure: { stage: "healthy" } });
    expect(h.events.verdict(id).verification).toBeUndefined();
  });
});

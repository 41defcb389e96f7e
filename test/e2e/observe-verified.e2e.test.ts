/**
 * The `verified` stage against the real control plane: after `healthy`, the new revision's pods
 * must hold for the request's window. kwok plays the kubelet and leaves a Running, Ready pod
 * alone, so the test writes what a kubelet writes when a container is OOM-killed and restarted
 * (restartCount, lastState.terminated, a new running state) through the pod's `/status`.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { kubeJson } from "../cluster/kubeJson.js";
import type { ObservationEvent } from "../../src/verdicts/contract/schemas.js";
import { kubeConfig } from "./support/cluster.js";
import { deployment } from "./support/manifests.js";
import { apply, collect, observeInOwnNamespace, observeRequest, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("verified", (file) => ({ stagewatch, namespace } = file));

/** Reads events up to the `healthy` stage; throws if the verdict comes first. */
async function untilHealthy(events: AsyncIterator<ObservationEvent>): Promise<ObservationEvent[]> {
  const seen: ObservationEvent[] = [];
  for (;;) {
    const next = await events.next();
    if (next.done || next.value.type === "verdict") throw new Error(`the observation ended before healthy: ${JSON.stringify(next.value)}`);
    seen.push(next.value);
    if (next.value.type === "stage" && next.value.stage === "healthy") return seen;
  }
}

interface PodJson {
  status: { containerStatuses: { restartCount: number; containerID?: string; state?: { running?: { startedAt?: string } } }[] };
}

/** What the kubelet writes when the container was OOM-killed and started again: the pod as the API server returned it, its status changed. */
function restartedAfterOomKill(pod: PodJson): PodJson {
  // Timestamps are whole seconds: written now, the kill is in or after the second healthy was reached in.
  const now = new Date();
  const killedAt = now.toISOString();
  const containerStatuses = pod.status.containerStatuses.map((status) => ({
    ...status,
    restartCount: status.restartCount + 1,
    lastState: { terminated: { exitCode: 137, reason: "OOMKilled", startedAt: status.state?.running?.startedAt ?? killedAt, finishedAt: killedAt, containerID: status.containerID } },
    state: { running: { startedAt: now.toISOString() } },
  }));
  return { ...pod, status: { ...pod.status, containerStatuses } };
}

describe("require verified", () => {
  it("a Deployment whose pods hold through the window is verified when the window ends", async () => {
    const api = deployment({ namespace, name: "api", replicas: 2 });
    await apply(kc, api.manifest);
    const verifiedBefore = await stagewatch.metric("stagewatch_verification_windows_total", { result: "verified" });
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "api", resources: [api.identity], require: "verified", verify: { windowSeconds: 5 }, timeoutSeconds: 120 }));
    const { events, verdict } = await collect(run);

    expect(events.filter((e) => e.type === "stage").map((e) => e.stage)).toEqual(["applied", "bootstrapped", "healthy", "verified"]);
    expect(verdict).toMatchObject({ outcome: "succeeded", required: "verified", reached: "verified", verification: { windowSeconds: 5 } });
    const { verification } = verdict;
    // The window is the service's: it opened with the healthy stage and the verdict is its end.
    const healthy = events.find((e) => e.type === "stage" && e.stage === "healthy");
    expect(Date.parse(verification!.endsAt) - Date.parse(verification!.startedAt)).toBe(5000);
    expect(Date.parse(verification!.startedAt)).toBeLessThanOrEqual(Date.parse(healthy!.at));
    expect(verdict.decidedAt).toBe(verification!.endsAt);
    expect(verification!.pods).toHaveLength(2);
    expect(verdict.message).toMatch(/^deployment api reached verified: held 5s after healthy; 2 pods read \(api-[a-z0-9]+-[a-z0-9]+, api-[a-z0-9]+-[a-z0-9]+\): no restart/);
    expect(await stagewatch.metric("stagewatch_verification_windows_total", { result: "verified" })).toBe(verifiedBefore + 1);
  });

  it("a container restarted after healthy fails the window at once, naming pod, container and reason", async () => {
    const web = deployment({ namespace, name: "web", replicas: 1 });
    await apply(kc, web.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "web", resources: [web.identity], require: "verified", verify: { windowSeconds: 240 }, timeoutSeconds: 300 }));
    const events = run.progress[Symbol.asyncIterator]();
    await untilHealthy(events);

    const core = kc.makeApiClient(CoreV1Api);
    const [listed] = (await core.listNamespacedPod({ namespace, labelSelector: "app=web" })).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
    const name = listed!.metadata!.name!;
    const path = `/api/v1/namespaces/${namespace}/pods/${name}`;
    await kubeJson(kc, "PUT", `${path}/status`, restartedAfterOomKill((await kubeJson(kc, "GET", path)) as unknown as PodJson));

    const verdict = await run.verdict;
    expect(verdict).toMatchObject({
      outcome: "failed",
      reached: "healthy",
      failure: { stage: "verified", reason: "OOMKilled", resource: web.identity },
    });
    expect(verdict.message).toMatch(new RegExp(`^deployment web cannot reach verified: pod ${name} container web restarted \\(OOMKilled, exit code 137\\) \\d+s after healthy$`));
  });

  it("a budget ending inside the window times out naming the stage and what the window had read", async () => {
    const jobs = deployment({ namespace, name: "jobs", replicas: 1 });
    await apply(kc, jobs.manifest);
    // A deadline, not timeoutSeconds: the window is longer than what is left of the budget, which
    // a request can only say with an absolute deadline (a timeout must be longer than the window).
    const deadline = new Date(Date.now() + 20_000).toISOString();
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "jobs", resources: [jobs.identity], require: "verified", verify: { windowSeconds: 60 }, timeoutSeconds: undefined, deadline }));
    const { events, verdict } = await collect(run);

    expect(events.filter((e) => e.type === "stage").map((e) => e.stage)).toEqual(["applied", "bootstrapped", "healthy"]);
    expect(verdict).toMatchObject({ outcome: "timed_out", reached: "healthy", failure: { stage: "verified", reason: "VerificationWindowOpen", resource: jobs.identity } });
    expect(verdict.message).toMatch(/^deployment jobs did not reach verified within \d+s: the verification window ran \d+s of 1m0s after healthy; 1 pod read \(jobs-[a-z0-9]+-[a-z0-9]+\): no restart, readiness flap, OOMKilled or Error termination, eviction or Warning \(BackOff, Unhealthy, Evicted\) so far$/);
  });
});

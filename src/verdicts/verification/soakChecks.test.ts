// The soak checks, one table: pods as the kubelet writes them after a rollout (fixtures with full
// status blocks), the window opened at 10:01:40 (the fixtures' transition time), read 90 s later.
import { describe, expect, it } from "vitest";
import type { Pod } from "../../kube/objects.js";
import type { ClusterWarning } from "../../kube/warnings.js";
import { legacyWarning } from "../../../test/fixtures/kube/events.js";
import { condition, uidOf } from "../../../test/fixtures/kube/meta.js";
import { pod, running, terminated } from "../../../test/fixtures/kube/pods.js";
import { deployment, job, replicaSet } from "../../../test/fixtures/kube/workloads.js";
import { readSoak, type SoakProblem } from "./soakChecks.js";

const api = deployment({ replicas: 2 });
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 2 });
const windowStartMs = Date.parse("2026-11-29T10:01:40Z");
const nowMs = windowStartMs + 90_000;
const later = (seconds: number) => new Date(windowStartMs + seconds * 1000).toISOString().replace(".000Z", "Z");
const apiPod = (containers = [running("api")], extra: Partial<Parameters<typeof pod>[0]> = {}) => pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, containers, ...extra });
const podUid = uidOf("pod/api-7f9c6d8b5-x2k8p");

function warningOf(about: Pod, reason: string, message: string, seconds: number): ClusterWarning {
  const event = legacyWarning(about, { reason, message, lastTimestamp: later(seconds), component: "kubelet" }) as unknown as { involvedObject: ClusterWarning["involved"] };
  return { involved: event.involvedObject, eventNamespace: "payments", reason, message, count: 1, lastSeenMs: Date.parse(later(seconds)) };
}

const cases: { name: string; pods: Pod[]; warnings?: ClusterWarning[]; seenReady?: string[]; problem: Partial<SoakProblem> | undefined }[] = [
  { name: "ready pods, no restart: nothing", pods: [apiPod()], problem: undefined },
  {
    name: "a restart that finished in the window, with the kubelet's reason",
    pods: [apiPod([running("api", { restartCount: 2, lastTerminated: { exitCode: 137, reason: "OOMKilled", startedAt: later(10), finishedAt: later(30) } })])],
    problem: { subject: "pod api-7f9c6d8b5-x2k8p", container: "api", reason: "OOMKilled", happened: "restarted (OOMKilled, exit code 137)", atMs: windowStartMs + 30_000 },
  },
  {
    name: "a restart that finished before the window: not this window's",
    pods: [apiPod([running("api", { restartCount: 1, lastTerminated: { exitCode: 1, reason: "Error", finishedAt: later(-1) } })])],
    problem: undefined,
  },
  {
    name: "a container terminated Error in the window (restartPolicy Never)",
    pods: [apiPod([terminated("api", { exitCode: 2, reason: "Error", finishedAt: later(12) })], { phase: "Failed" })],
    problem: { reason: "Error", happened: "terminated (Error, exit code 2)", atMs: windowStartMs + 12_000 },
  },
  {
    name: "a Job's pod that completed: nothing",
    pods: [pod({ name: "schema-migrate-66khh", owner: job({ name: "schema-migrate", status: { succeeded: 1 } }), phase: "Succeeded", containers: [terminated("migrate", { exitCode: 0, reason: "Completed", finishedAt: later(5) })] })],
    problem: undefined,
  },
  {
    name: "Ready turned False on a pod seen ready",
    pods: [apiPod([running("api", { ready: false })])],
    seenReady: [podUid],
    problem: { reason: "ContainersNotReady", happened: "readiness flapped (Ready True -> False, ContainersNotReady)", atMs: nowMs },
  },
  { name: "not ready, never seen ready in the window: no flap", pods: [apiPod([running("api", { ready: false })])], problem: undefined },
  { name: "not ready while being deleted: no flap", pods: [apiPod([running("api", { ready: false })], { deletionTimestamp: later(50) })], seenReady: [podUid], problem: undefined },
  {
    name: "evicted by the kubelet under node pressure",
    pods: [apiPod([running("api", { ready: false })], { phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi." })],
    problem: { reason: "Evicted", happened: "was evicted (Evicted: The node was low on resource: memory. Threshold quantity: 100Mi, available: 80Mi.)" },
  },
  {
    name: "DisruptionTarget from the eviction API",
    pods: [{ ...apiPod(), status: { ...apiPod().status, conditions: [...(apiPod().status?.conditions ?? []), condition("DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting")] } }],
    problem: { reason: "EvictionByEvictionAPI", happened: "is being evicted (EvictionByEvictionAPI: Eviction API: evicting)" },
  },
  {
    name: "a failOn Warning about a pod, in the window",
    pods: [apiPod()],
    warnings: [warningOf(apiPod(), "Unhealthy", "Liveness probe failed: Get \"http://10.244.1.17:8080/healthz\": context deadline exceeded", 20)],
    problem: { reason: "Unhealthy", happened: 'had Warning Unhealthy: Liveness probe failed: Get "http://10.244.1.17:8080/healthz": context deadline exceeded' },
  },
  { name: "a failOn Warning from before the window", pods: [apiPod()], warnings: [warningOf(apiPod(), "BackOff", "Back-off restarting failed container api", -5)], problem: undefined },
  { name: "a Warning failOn does not name", pods: [apiPod()], warnings: [warningOf(apiPod(), "FailedMount", "MountVolume.SetUp failed", 20)], problem: undefined },
  {
    name: "a failOn Warning about a pod of another revision",
    pods: [apiPod()],
    warnings: [warningOf(pod({ name: "api-5d8f7c9b4-abcde", owner: current }), "Unhealthy", "Readiness probe failed", 20)],
    problem: undefined,
  },
];

describe("readSoak", () => {
  it.each(cases)("$name", ({ pods, warnings = [], seenReady = [], problem }) => {
    const read = readSoak({ pods, workloadUid: api.metadata.uid, warnings, windowStartMs, nowMs, failOn: new Set(["BackOff", "Unhealthy", "Evicted"]), seenReady: new Set(seenReady) });
    if (problem === undefined) expect(read.problem).toBeUndefined();
    else expect(read.problem).toMatchObject(problem);
  });

  it("remembers the pods seen ready, and reports the earliest of several problems", () => {
    const restarted = running("api", { restartCount: 1, lastTerminated: { exitCode: 137, reason: "OOMKilled", finishedAt: later(40) } });
    const read = readSoak({
      pods: [apiPod([restarted])],
      workloadUid: api.metadata.uid,
      warnings: [warningOf(apiPod(), "BackOff", "Back-off restarting failed container api", 41), warningOf(apiPod(), "Unhealthy", "Readiness probe failed", 35)],
      windowStartMs,
      nowMs,
      failOn: new Set(["BackOff", "Unhealthy"]),
      seenReady: new Set(),
    });
    expect(read.seenReady).toEqual(new Set([podUid]));
    expect(read.problem).toMatchObject({ reason: "Unhealthy", atMs: windowStartMs + 35_000 });
  });
});

it("a restart stamped in the second healthy was reached in counts: the kubelet writes whole seconds", () => {
  const restarted = running("api", { restartCount: 1, lastTerminated: { exitCode: 137, reason: "OOMKilled", finishedAt: "2026-11-29T10:01:40Z" } });
  const read = readSoak({ pods: [apiPod([restarted])], workloadUid: api.metadata.uid, warnings: [], windowStartMs: windowStartMs + 700, nowMs, failOn: new Set(), seenReady: new Set() });
  expect(read.problem).toMatchObject({ reason: "OOMKilled", atMs: windowStartMs });
});

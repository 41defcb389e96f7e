// The failing container's log tail in the engine: read once when the verdict is decided, stored
// with it, published as stored; a refused or missing reader is a note, never a failure.
import { describe, expect, it } from "vitest";
import { pod, running, terminated, waiting } from "../../test/fixtures/kube/pods.js";
import { deployment, deploymentConditions, job, jobConditions, replicaSet } from "../../test/fixtures/kube/workloads.js";
import { KubeRequestError, type PodLogReader, type PodLogRequest } from "../streams/index.js";
import { drainMicrotasks, engineHarness, observationRequest, type EngineHarness, type EngineHarnessOptions, putObjects as put } from "./testing/index.js";

const migrate = { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", bootstrap: true } as const;
const log = [
  "2026-11-29T10:00:21Z applying 0042_add_invoices",
  "2026-11-29T10:00:21Z connecting with password=hunter2",
  'ERROR: relation "invoices" already exists',
].join("\n");

/** A reader answering `answer` and remembering what it was asked. */
function reader(answer: (request: PodLogRequest) => Promise<string>): PodLogReader & { asked: PodLogRequest[] } {
  const asked: PodLogRequest[] = [];
  return Object.assign((request: PodLogRequest) => {
    asked.push(request);
    return answer(request);
  }, { asked });
}

/** A bootstrap Job whose one pod failed, observed with `logs`; returns the observation id once decided. */
async function failedJob(options: EngineHarnessOptions, logs: boolean | undefined) {
  const h = engineHarness(options);
  const active = job({ status: { active: 1, ready: 1, startTime: "2026-11-29T10:00:05Z" } });
  const migratePod = (state: "running" | "failed") =>
    pod({
      name: "schema-migrate-8q2lw",
      owner: active,
      phase: state === "running" ? "Running" : "Failed",
      containers: [state === "running" ? running("migrate") : terminated("migrate", { exitCode: 1, reason: "Error" })],
    });
  await put(h, active, migratePod("running"));
  const id = await h.start(observationRequest({ require: "bootstrapped", resources: [migrate], ...(logs !== undefined && { logs }) }));
  await put(h, migratePod("failed"));
  await put(h, job({ status: { failed: 1, conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") } }));
  await drainMicrotasks();
  return { h, id };
}

/** A Deployment whose one pod's container crashed once and waits to restart. */
async function crashLooping(h: EngineHarness): Promise<void> {
  const api = deployment({ revision: "1", replicas: 1, status: { observedGeneration: 7, replicas: 1, updatedReplicas: 1, conditions: [deploymentConditions.unavailable()] } });
  const rs = replicaSet(api, { name: "api-7f9c6d8b5", revision: "1", replicas: 1 });
  const crashed = { exitCode: 2, reason: "Error", finishedAt: "2026-11-29T10:00:40Z" };
  await put(h, api, rs, pod({ name: "api-7f9c6d8b5-x2x2x", owner: rs, containers: [waiting("api", "CrashLoopBackOff", "back-off 10s", { restartCount: 1, lastTerminated: crashed })] }));
}

describe("the failing container's log tail", () => {
  it("reads the failed Job's container once, stores the scrubbed tail with the verdict and publishes what is stored", async () => {
    const logs = reader(async () => `${log}\n`);
    const { h, id } = await failedJob({ podLogs: logs }, true);
    expect(logs.asked).toEqual([
      { namespace: "payments", pod: "schema-migrate-8q2lw", container: "migrate", init: false, previous: false, tailLines: 21, limitBytes: 16384 },
    ]);
    const tail = {
      pod: "schema-migrate-8q2lw",
      container: "migrate",
      init: false,
      previous: false,
      lines: ["2026-11-29T10:00:21Z applying 0042_add_invoices", "2026-11-29T10:00:21Z connecting with password=[redacted]", 'ERROR: relation "invoices" already exists'],
      truncated: false,
    };
    expect(h.events.verdict(id).failure).toMatchObject({ reason: "BackoffLimitExceeded", logTail: tail });
    expect((await h.records.getRecord(id))?.record.verdict?.failure?.logTail).toEqual(tail);
    expect(h.events.lines(id).filter((line) => line.startsWith("verdict"))).toEqual(["verdict failed"]);
  });

  it("a refused read is a note in the failure, and the verdict stands", async () => {
    const logs = reader(() =>
      Promise.reject(new KubeRequestError("GET pods/log: 403", { status: 403, reason: "Forbidden", statusMessage: 'pods "schema-migrate-8q2lw" is forbidden: User "system:serviceaccount:stagewatch:stagewatch" cannot get resource "pods/log"' })),
    );
    const { h, id } = await failedJob({ podLogs: logs }, true);
    const verdict = h.events.verdict(id);
    expect(verdict.outcome).toBe("failed");
    expect(verdict.failure?.logTail).toBeUndefined();
    expect(verdict.failure?.logNote).toBe(
      'log of pod schema-migrate-8q2lw container migrate not read: Forbidden: pods "schema-migrate-8q2lw" is forbidden: User "system:serviceaccount:stagewatch:stagewatch" cannot get resource "pods/log"',
    );
  });

  it("a service without --container-logs says so in a note", async () => {
    const { h, id } = await failedJob({}, true);
    expect(h.events.verdict(id).failure?.logNote).toMatch(/^log of pod schema-migrate-8q2lw container migrate not read: the service does not read container logs/);
  });

  it("a request without logs reads nothing", async () => {
    const logs = reader(async () => log);
    const { h, id } = await failedJob({ podLogs: logs }, undefined);
    expect(logs.asked).toEqual([]);
    expect(h.events.verdict(id).failure).not.toHaveProperty("logNote");
    expect(h.events.verdict(id).failure).not.toHaveProperty("logTail");
  });

  it("a budget that runs out on a crash-looping Deployment (CrashLoopBackOff not in failOn) reads its container's previous instance", async () => {
    const logs = reader(async () => "panic: missing DATABASE_URL\n");
    const h = engineHarness({ podLogs: logs });
    await crashLooping(h);
    const id = await h.start(observationRequest({ timeoutSeconds: 60, logs: true }));
    expect(logs.asked).toEqual([]);
    await h.advance(60_000);
    await drainMicrotasks();
    expect(h.events.verdict(id)).toMatchObject({ outcome: "timed_out", failure: { reason: "CrashLoopBackOff", logTail: { container: "api", previous: true, lines: ["panic: missing DATABASE_URL"] } } });
    expect(logs.asked).toHaveLength(1);
  });

  it("a Deployment failing on CrashLoopBackOff reads the previous instance of the crashing container", async () => {
    const logs = reader(async () => "panic: missing DATABASE_URL\n");
    const h = engineHarness({ podLogs: logs });
    await crashLooping(h);
    const id = await h.start(observationRequest({ failOn: ["CrashLoopBackOff"], logs: true }));
    await drainMicrotasks();
    expect(logs.asked.map((r) => [r.pod, r.container, r.previous])).toEqual([["api-7f9c6d8b5-x2x2x", "api", true]]);
    expect(h.events.verdict(id).failure?.logTail?.lines).toEqual(["panic: missing DATABASE_URL"]);
  });
});

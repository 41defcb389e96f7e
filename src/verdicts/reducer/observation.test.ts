// The reducer's stage and outcome rules, driven by readings built with the reading constructors
// (the rules have their own tables; test/unit/spec-examples.test.ts runs both together).
import { describe, expect, it } from "vitest";
import { keys, observation, seconds } from "../../../test/fixtures/observation.js";
import { uidOf } from "../../../test/fixtures/kube/meta.js";
import { advanceClock, cancelObservation, recordReading, toVerdict, type ObservedObject } from "./observation.js";
import type { ObservationState } from "./observationState.js";
import { failed, pending, settled, type ResourceReading } from "../rules/reading.js";
import { ObservationVerdict } from "../contract/schemas.js";

function read(state: ObservationState, key: string, reading: ResourceReading, atSeconds: number, object: Partial<ObservedObject> = {}) {
  return recordReading(state, key, { uid: uidOf(key), generation: 7, reading, ...object }, seconds(atSeconds));
}

const completed = settled("1/1 completions");
const rolledOut = settled("3/3 replicas ready, 3 updated");
const exists = settled("exists");

describe("stages", () => {
  it("are cumulative and each is announced once", () => {
    let state = observation();
    let step = read(state, keys.config, exists, 1);
    expect(step.changes).toEqual([{ type: "resource", key: keys.config, resource: { identity: { apiVersion: "v1", kind: "ConfigMap", namespace: "payments", name: "api-config" }, state: "settled", message: "exists" } }]);
    state = step.state;
    step = read(state, keys.api, pending(undefined, "0/3 replicas ready, 3 updated"), 2);
    expect(step.changes).toEqual([]);
    state = step.state;
    step = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 3);
    expect(step.changes).toEqual([{ type: "stage", stage: "applied" }]);
    state = step.state;
    step = read(state, keys.api, rolledOut, 20);
    expect(step.changes.map((c) => c.type)).toEqual(["resource"]);
    expect(step.state.reached).toBe("applied");
    state = step.state;
    step = read(state, keys.migrate, completed, 41);
    expect(step.changes.map((c) => (c.type === "stage" ? `stage ${c.stage}` : c.type))).toEqual(["resource", "stage bootstrapped", "stage healthy", "verdict"]);
    expect(toVerdict(step.state)).toMatchObject({
      outcome: "succeeded",
      required: "healthy",
      reached: "healthy",
      message: "deployment payments reached healthy: 3 resources settled",
      decidedAt: "2026-11-29T10:00:41.000Z",
    });
  });

  it("required applied succeeds once everything is seen, whatever the readings say", () => {
    let state = observation({ require: "applied" });
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.api, failed("ImagePullBackOff", "0/3 replicas ready, 3 updated; pod api-7f9c6d8b5-x2k8p container api: ImagePullBackOff"), 2).state;
    const step = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 3);
    expect(toVerdict(step.state)).toMatchObject({ outcome: "succeeded", reached: "applied", message: "deployment payments reached applied: 3 resources exist" });
    expect(toVerdict(step.state).failure).toBeUndefined();
  });

  it("a resource seen below the requested generation is not applied yet", () => {
    let state = observation();
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 1).state;
    state = read(state, keys.api, pending("WaitingForGeneration", "waiting for generation 7 (cluster has 6)"), 2, { generation: 6 }).state;
    expect(state.reached).toBe("none");
    const step = read(state, keys.api, pending(undefined, "0/3 replicas ready, 1 updated"), 3, { generation: 7 });
    expect(step.state.reached).toBe("applied");
  });

  it("a bootstrap Job marked by label gates bootstrapped; an unmarked Job does not", () => {
    let state = observation({
      require: "bootstrapped",
      resources: [
        { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate" },
        { apiVersion: "batch/v1", kind: "Job", name: "smoke-test" },
        { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      ],
    });
    state = read(state, "batch/Job/payments/smoke-test", pending(undefined, "0/1 completions, 1 active"), 1).state;
    state = read(state, keys.api, pending(undefined, "0/3 replicas ready, 3 updated"), 1).state;
    state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 2, { labels: { "stagewatch.io/bootstrap": "schema" } }).state;
    expect(state.reached).toBe("applied");
    const step = read(state, keys.migrate, completed, 30, { labels: { "stagewatch.io/bootstrap": "schema" } });
    expect(toVerdict(step.state)).toMatchObject({
      outcome: "succeeded",
      reached: "bootstrapped",
      message: "deployment payments reached bootstrapped: 3 resources exist, 1 bootstrap Job complete",
    });
  });
});

describe("settled resources", () => {
  it("are never read again: a later reading of a settled Deployment changes nothing", () => {
    let state = observation();
    state = read(state, keys.api, rolledOut, 10).state;
    const again = read(state, keys.api, failed("ImagePullBackOff", "2/3 replicas ready, 3 updated; pod api-7f9c6d8b5-q7r4t container api: ImagePullBackOff"), 60);
    expect(again.changes).toEqual([]);
    expect(toVerdict(again.state).resources[1]).toMatchObject({ state: "settled", message: "3/3 replicas ready, 3 updated" });
    expect(again.state.outcome).toBe("in_progress");
  });
});

describe("failures", () => {
  it("a bootstrap Job failing means the deployment cannot reach bootstrapped", () => {
    let state = observation();
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.api, pending(undefined, "0/3 replicas ready, 3 updated"), 1).state;
    const step = read(state, keys.migrate, failed("BackoffLimitExceeded", "Job has reached the specified backoff limit"), 95);
    const verdict = toVerdict(step.state);
    expect(verdict.outcome).toBe("failed");
    expect(verdict.message).toBe(
      "deployment payments cannot reach bootstrapped: Job payments/schema-migrate: failed: BackoffLimitExceeded: Job has reached the specified backoff limit",
    );
    expect(verdict.failure).toEqual({
      stage: "bootstrapped",
      resource: { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true },
      reason: "BackoffLimitExceeded",
      message: "Job has reached the specified backoff limit",
    });
  });

  it("a failure beyond the required stage is recorded, not fatal", () => {
    let state = observation({ require: "bootstrapped" });
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 1).state;
    const failing = read(state, keys.api, failed("ImagePullBackOff", "0/3 replicas ready, 3 updated; pod api-7f9c6d8b5-x2k8p container api: ImagePullBackOff"), 5);
    expect(failing.state.outcome).toBe("in_progress");
    expect(toVerdict(failing.state).resources[1]).toMatchObject({ state: "failed", reason: "ImagePullBackOff" });
    const done = read(failing.state, keys.migrate, completed, 40);
    expect(toVerdict(done.state)).toMatchObject({ outcome: "succeeded", reached: "bootstrapped" });
  });

  it("an ordinary workload failing means the deployment cannot reach healthy", () => {
    let state = observation();
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.migrate, completed, 2).state;
    const step = read(state, keys.api, failed("InvalidImageName", "0/3 replicas ready, 3 updated; pod api-7f9c6d8b5-x2k8p container api: InvalidImageName"), 9);
    expect(toVerdict(step.state).message).toBe(
      "deployment payments cannot reach healthy: Deployment payments/api: failed: InvalidImageName: 0/3 replicas ready, 3 updated; pod api-7f9c6d8b5-x2k8p container api: InvalidImageName",
    );
    expect(step.state.reached).toBe("bootstrapped");
  });
});

describe("outcomes", () => {
  it("a cancelled observation that later sees a failure stays cancelled", () => {
    let state = observation();
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 1).state;
    state = read(state, keys.api, pending(undefined, "0/3 replicas ready, 3 updated"), 1).state;
    const cancelled = cancelObservation(state, "superseded by revision 43", seconds(60));
    expect(cancelled.changes.map((c) => c.type)).toEqual(["verdict"]);
    expect(toVerdict(cancelled.state).message).toBe("deployment payments cancelled before reaching healthy (reached applied): superseded by revision 43");
    const late = read(cancelled.state, keys.migrate, failed("BackoffLimitExceeded", "Job has reached the specified backoff limit"), 61);
    expect(late.changes).toEqual([]);
    expect(late.state).toBe(cancelled.state);
    expect(toVerdict(late.state)).toMatchObject({ outcome: "cancelled", decidedAt: "2026-11-29T10:01:00.000Z" });
  });

  it("a decided observation ignores a later cancel", () => {
    let state = observation({ require: "applied" });
    for (const key of [keys.config, keys.migrate, keys.api]) state = read(state, key, pending(undefined, "seen"), 1).state;
    expect(state.outcome).toBe("succeeded");
    const step = cancelObservation(state, undefined, seconds(2));
    expect(step.changes).toEqual([]);
    expect(step.state.outcome).toBe("succeeded");
  });

  it("emits a resource change only when its state or reason changes", () => {
    let state = observation();
    const first = read(state, keys.api, pending("ProgressDeadlineExceeded", "1/3 replicas ready, 3 updated; ProgressDeadlineExceeded: ReplicaSet \"api-7f9c6d8b5\" has timed out progressing."), 1);
    expect(first.changes.map((c) => c.type)).toEqual(["resource"]);
    state = first.state;
    const same = read(state, keys.api, pending("ProgressDeadlineExceeded", "2/3 replicas ready, 3 updated; ProgressDeadlineExceeded: ReplicaSet \"api-7f9c6d8b5\" has timed out progressing."), 2);
    expect(same.changes).toEqual([]);
    // The latest message is still what a `get` returns.
    expect(toVerdict(same.state).resources[1]?.message).toMatch(/^2\/3 replicas ready/);
  });

  it("every verdict matches the wire schema", () => {
    let state = observation();
    expect(ObservationVerdict.safeParse(toVerdict(state)).success).toBe(true);
    expect(toVerdict(state)).toMatchObject({
      outcome: "in_progress",
      reached: "none",
      message: "deployment payments waiting for healthy: 0/3 resources applied",
      startedAt: "2026-11-29T10:00:00.000Z",
      deadline: "2026-11-29T10:05:00.000Z",
    });
    state = read(state, keys.migrate, failed("BackoffLimitExceeded", "Job has reached the specified backoff limit"), 4).state;
    state = read(state, keys.config, exists, 4).state;
    expect(ObservationVerdict.safeParse(toVerdict(state)).success).toBe(true);
  });
});

describe("a workload scaled while observed (an HPA writing the scale subresource)", () => {
  const rolling = (replicas: number, message: string): ResourceReading => ({ ...pending(undefined, message), replicas });
  const api = { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api", generation: 7 };

  it("names each scale, from and to, in a progress event and in the pending text", () => {
    let state = observation();
    let step = read(state, keys.api, rolling(2, "1/2 replicas ready, 2 updated, 1 old replica"), 2);
    expect(step.state.resources.get(keys.api)).toMatchObject({ replicas: 2, scaled: undefined });
    state = step.state;
    // The HPA's write bumped the generation; the controller has not observed it yet: no count to compare.
    step = read(state, keys.api, pending("GenerationNotObserved", "generation 8 not yet observed by its controller (status is for 7)"), 3, { generation: 8 });
    expect(step.state.resources.get(keys.api)).toMatchObject({ replicas: 2, scaled: undefined });
    state = step.state;
    step = read(state, keys.api, rolling(5, "2/5 replicas ready, 3 updated, 1 old replica"), 4, { generation: 8 });
    expect(step.changes).toEqual([{ type: "resource", key: keys.api, resource: { identity: api, state: "pending", message: "scaled 2 -> 5; 2/5 replicas ready, 3 updated, 1 old replica" } }]);
    expect(step.state.resources.get(keys.api)?.scaled).toEqual({ from: 2, to: 5 });
    state = step.state;
    // The count moves, the target does not: the text keeps the scale, and no event is published for the count.
    step = read(state, keys.api, rolling(5, "4/5 replicas ready, 5 updated"), 9, { generation: 8 });
    expect(step.changes).toEqual([]);
    expect(toVerdict(step.state).resources.find((r) => r.identity.name === "api")?.message).toBe("scaled 2 -> 5; 4/5 replicas ready, 5 updated");
    state = step.state;
    step = read(state, keys.api, rolling(3, "3/3 replicas ready, 3 updated, 2 terminating"), 12, { generation: 9 });
    expect(step.changes).toEqual([{ type: "resource", key: keys.api, resource: { identity: api, state: "pending", message: "scaled 5 -> 3; 3/3 replicas ready, 3 updated, 2 terminating" } }]);
    state = step.state;
    step = read(state, keys.api, { ...settled("3/3 replicas ready, 3 updated"), replicas: 3 }, 14, { generation: 9 });
    expect(step.changes[0]).toEqual({ type: "resource", key: keys.api, resource: { identity: api, state: "settled", message: "scaled 5 -> 3; 3/3 replicas ready, 3 updated" } });
  });

  it("a timeout names the scale with the last reading", () => {
    // The fixture's budget: 300 s from 10:00:00.
    let state = observation();
    state = read(state, keys.config, exists, 1).state;
    state = read(state, keys.migrate, completed, 1).state;
    state = read(state, keys.api, rolling(2, "2/2 replicas ready, 2 updated, 1 old replica"), 2).state;
    state = read(state, keys.api, rolling(6, "2/6 replicas ready, 2 updated, 1 old replica"), 30).state;
    const verdict = toVerdict(advanceClock(state, seconds(300)).state);
    expect(verdict.outcome).toBe("timed_out");
    expect(verdict.message).toContain("Deployment payments/api: scaled 2 -> 6; 2/6 replicas ready, 2 updated, 1 old replica");
  });

  it("a re-created object (another UID) starts anew: it was replaced, not scaled", () => {
    let state = observation();
    state = read(state, keys.api, rolling(2, "0/2 replicas ready, 2 updated"), 2).state;
    const step = read(state, keys.api, rolling(4, "0/4 replicas ready, 4 updated"), 5, { uid: "9d2c1f0e-0000-4000-8000-000000000001" });
    expect(step.state.resources.get(keys.api)).toMatchObject({ replicas: 4, scaled: undefined });
    expect(toVerdict(step.state).resources.find((r) => r.identity.name === "api")?.message).toBe("0/4 replicas ready, 4 updated");
  });
});

// Grace periods and the budget on the reducer's clock: every time is a value passed in, so these
// run on a virtual clock and assert exact instants.
import { describe, expect, it } from "vitest";
import { keys, observation, observationRequest, seconds, startedAtMs } from "../../../test/fixtures/observation.js";
import { uidOf } from "../../../test/fixtures/kube/meta.js";
import { advanceClock, markCachesSynced, nextWakeAt, recordDeletion, recordReading, toVerdict, type ObservedObject } from "./observation.js";
import { budgetDeadline } from "../contract/budget.js";
import type { ObservationState } from "./observationState.js";
import { pending, settled, type ResourceReading } from "../rules/reading.js";

function read(state: ObservationState, key: string, reading: ResourceReading, atSeconds: number, object: Partial<ObservedObject> = {}) {
  return recordReading(state, key, { uid: uidOf(key), generation: 7, reading, ...object }, seconds(atSeconds));
}

const rolling = pending(undefined, "1/3 replicas ready, 3 updated");

/** Config settled, the Job running, the Deployment rolling: applied, nothing else. */
function underway(): ObservationState {
  let state = markCachesSynced(observation(), seconds(1)).state;
  state = read(state, keys.config, settled("exists"), 2).state;
  state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 2).state;
  return read(state, keys.api, rolling, 3).state;
}

describe("settled resources", () => {
  it("a Job deleted by its TTL after completing stays settled", () => {
    let state = read(underway(), keys.migrate, settled("1/1 completions"), 40).state;
    const deleted = recordDeletion(state, keys.migrate, uidOf(keys.migrate), seconds(45));
    expect(deleted.changes).toEqual([]);
    state = advanceClock(deleted.state, seconds(120)).state;
    expect(toVerdict(state).resources[0]).toMatchObject({ state: "settled", message: "1/1 completions" });
    const done = read(state, keys.api, settled("3/3 replicas ready, 3 updated"), 130);
    expect(toVerdict(done.state)).toMatchObject({ outcome: "succeeded", reached: "healthy" });
  });
});

describe("deletion", () => {
  it("a resource deleted before it settled fails NotFound when the grace ends", () => {
    const deleted = recordDeletion(underway(), keys.api, uidOf(keys.api), seconds(30));
    expect(deleted.changes).toEqual([
      {
        type: "resource",
        key: keys.api,
        resource: {
          identity: { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api", generation: 7 },
          state: "pending",
          reason: "Deleted",
          message: "deleted; a re-create within 10s is followed",
        },
      },
    ]);
    expect(nextWakeAt(deleted.state)).toBe(seconds(40));
    expect(advanceClock(deleted.state, seconds(39.999)).changes).toEqual([]);
    const expired = advanceClock(deleted.state, seconds(40));
    expect(expired.changes.map((c) => c.type)).toEqual(["resource", "verdict"]);
    expect(toVerdict(expired.state)).toMatchObject({
      outcome: "failed",
      reached: "applied",
      message: "deployment payments cannot reach healthy: Deployment payments/api: failed: NotFound: deleted before it settled",
      failure: { stage: "healthy", reason: "NotFound", message: "deleted before it settled" },
      decidedAt: "2026-11-29T10:00:40.000Z",
    });
  });

  it("a re-create with a new UID inside the grace is followed", () => {
    let state = recordDeletion(underway(), keys.api, uidOf(keys.api), seconds(30)).state;
    state = read(state, keys.api, pending(undefined, "0/3 replicas ready, 0 updated"), 35, { uid: uidOf("api, second incarnation") }).state;
    expect(nextWakeAt(state)).toBe(seconds(300));
    state = advanceClock(state, seconds(100)).state;
    expect(state.outcome).toBe("in_progress");
    expect(state.resources.get(keys.api)?.uid).toBe(uidOf("api, second incarnation"));
    // A late delete of the old incarnation changes nothing.
    expect(recordDeletion(state, keys.api, uidOf(keys.api), seconds(101)).changes).toEqual([]);
  });

  it("a re-create seen after the grace ran out comes too late, whenever the engine's timer fires", () => {
    const state = recordDeletion(underway(), keys.api, uidOf(keys.api), seconds(30)).state;
    const late = read(state, keys.api, rolling, 45, { uid: uidOf("api, second incarnation") });
    expect(toVerdict(late.state)).toMatchObject({ outcome: "failed", failure: { reason: "NotFound" }, decidedAt: "2026-11-29T10:00:40.000Z" });
  });
});

describe("absence", () => {
  it("a resource never seen after the caches synced fails NotFound after the grace", () => {
    let state = markCachesSynced(observation({ absentGraceSeconds: 30 }), seconds(2)).state;
    state = read(state, keys.config, settled("exists"), 2).state;
    state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 3).state;
    expect(nextWakeAt(state)).toBe(seconds(32));
    expect(advanceClock(state, seconds(31)).changes).toEqual([]);
    const expired = advanceClock(state, seconds(32));
    expect(toVerdict(expired.state)).toMatchObject({
      outcome: "failed",
      reached: "none",
      message: "deployment payments cannot reach applied: Deployment payments/api: failed: NotFound: not found 30s after the caches synced",
      failure: { stage: "applied", reason: "NotFound" },
    });
  });

  it("the absence grace does not start before the caches synced", () => {
    const state = observation();
    expect(nextWakeAt(state)).toBe(seconds(300));
    expect(advanceClock(state, seconds(200)).state.outcome).toBe("in_progress");
    // A later re-sync does not restart the grace either.
    const synced = markCachesSynced(markCachesSynced(state, seconds(210)).state, seconds(215)).state;
    expect(nextWakeAt(synced)).toBe(seconds(220));
  });
});

describe("budget", () => {
  it("expiry names every outstanding resource with its last reading, lowest stage first", () => {
    let state = observation({
      resources: [
        { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 },
        { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true },
        { apiVersion: "v1", kind: "ConfigMap", name: "api-config" },
        { apiVersion: "v1", kind: "Secret", name: "payments-db" },
      ],
    });
    state = read(state, keys.config, settled("exists"), 2).state;
    state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 2).state;
    state = read(state, keys.api, rolling, 3).state;
    expect(advanceClock(state, seconds(299.999)).changes).toEqual([]);
    const expired = advanceClock(state, seconds(300));
    expect(expired.changes.map((c) => c.type)).toEqual(["verdict"]);
    const verdict = toVerdict(expired.state);
    expect(verdict.outcome).toBe("timed_out");
    expect(verdict.message).toBe(
      [
        "deployment payments did not reach applied within 5m0s: Secret payments/payments-db: not seen in the cluster yet",
        "deployment payments did not reach bootstrapped within 5m0s: Job payments/schema-migrate: 0/1 completions, 1 active",
        "deployment payments did not reach healthy within 5m0s: Deployment payments/api: 1/3 replicas ready, 3 updated",
      ].join("\n"),
    );
    expect(verdict.failure).toEqual({
      stage: "applied",
      resource: { apiVersion: "v1", kind: "Secret", namespace: "payments", name: "payments-db" },
      reason: "InProgress",
      message: "not seen in the cluster yet",
    });
    expect(verdict.decidedAt).toBe("2026-11-29T10:05:00.000Z");
    expect(nextWakeAt(expired.state)).toBeUndefined();
  });

  it("a budget that ran out before a late event arrived has run out", () => {
    const state = underway();
    const late = read(state, keys.api, settled("3/3 replicas ready, 3 updated"), 301);
    expect(late.state.outcome).toBe("timed_out");
    expect(toVerdict(late.state).message).toContain("Deployment payments/api: 1/3 replicas ready, 3 updated");
  });

  it("a grace ending with the budget loses to it", () => {
    const state = recordDeletion(underway(), keys.api, uidOf(keys.api), seconds(290)).state;
    expect(nextWakeAt(state)).toBe(seconds(300));
    expect(advanceClock(state, seconds(300)).state.outcome).toBe("timed_out");
  });
});

describe("budgetDeadline", () => {
  it.each([
    { name: "timeoutSeconds alone", request: { timeoutSeconds: 300 }, expected: startedAtMs + 300_000 },
    { name: "deadline alone", request: { timeoutSeconds: undefined, deadline: "2026-11-29T10:02:00Z" }, expected: Date.parse("2026-11-29T10:02:00Z") },
    { name: "deadline earlier than timeoutSeconds", request: { timeoutSeconds: 600, deadline: "2026-11-29T10:02:00+00:00" }, expected: Date.parse("2026-11-29T10:02:00Z") },
    { name: "timeoutSeconds earlier than deadline", request: { timeoutSeconds: 60, deadline: "2026-11-29T13:00:00+02:00" }, expected: startedAtMs + 60_000 },
  ])("$name", ({ request, expected }) => {
    expect(budgetDeadline(observationRequest(request), startedAtMs)).toBe(expected);
  });
});

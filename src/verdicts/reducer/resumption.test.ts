// Resuming from a record: what a new owner rebuilds must decide as the first owner would have.
import { describe, expect, it } from "vitest";
import { keys, observation, observationRequest, seconds, startedAtMs } from "../../../test/fixtures/observation.js";
import { advanceClock, markCachesSynced, nextWakeAt, recordReading, toVerdict } from "./observation.js";
import { failed, pending, settled } from "../rules/reading.js";
import { labelledBootstrapKeys, resumeObservation } from "./resumption.js";
import type { ObservationState } from "./observationState.js";

const uid = (name: string) => `00000000-0000-4000-8000-${name.padStart(12, "0")}`;

/** The first owner's life: the Job completed, the ConfigMap was seen, the Deployment is rolling out. */
function beforeTheCrash(): ObservationState {
  let state = observation();
  state = recordReading(state, keys.migrate, { uid: uid("1"), generation: 1, reading: settled("1/1 completions") }, seconds(5)).state;
  state = recordReading(state, keys.config, { uid: uid("2"), reading: settled("exists") }, seconds(6)).state;
  state = recordReading(
    state,
    keys.api,
    { uid: uid("3"), generation: 7, reading: pending("ContainerCreating", "0/2 replicas ready, 2 updated") },
    seconds(7),
  ).state;
  return state;
}

function resumed(from: ObservationState) {
  const verdict = toVerdict(from);
  const result = resumeObservation({
    observationId: from.observationId,
    request: observationRequest(),
    startedAtMs,
    deadlineMs: from.deadlineMs,
    verdict,
    labelledBootstrap: labelledBootstrapKeys(from),
  });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

describe("resumeObservation", () => {
  it("keeps the budget, the stages reached and what settled; pending resources keep their last reading but are read afresh", () => {
    const before = beforeTheCrash();
    expect(before.reached).toBe("bootstrapped");
    const state = resumed(before);
    expect(state.deadlineMs).toBe(seconds(300));
    expect(state.reached).toBe("bootstrapped");
    expect(toVerdict(state).resources).toEqual(toVerdict(before).resources);
    // The Deployment counts as not seen by this owner: its absence grace starts when the caches sync.
    expect(state.resources.get(keys.api)?.uid).toBeUndefined();
    expect(state.tally.unseen).toBe(1);
  });

  it("never reads a settled resource again: a bootstrap Job removed by its TTL still counts", () => {
    let state = resumed(beforeTheCrash());
    state = markCachesSynced(state, seconds(60)).state;
    // The Job is gone from the cluster; only the Deployment is read, and it is ready.
    const step = recordReading(state, keys.api, { uid: uid("3"), generation: 7, reading: settled("2/2 replicas ready, 2 updated") }, seconds(61));
    expect(step.state.outcome).toBe("succeeded");
    expect(step.changes.map((change) => change.type)).toEqual(["resource", "stage", "verdict"]);
  });

  it("times out with the recorded reading when the deadline passed while nobody owned it", () => {
    const state = resumed(beforeTheCrash());
    const step = advanceClock(state, seconds(900));
    expect(step.state.outcome).toBe("timed_out");
    expect(toVerdict(step.state)).toMatchObject({
      decidedAt: new Date(seconds(300)).toISOString(),
      message: "deployment payments did not reach healthy within 5m0s: Deployment payments/api: 0/2 replicas ready, 2 updated",
      failure: { reason: "ContainerCreating" },
    });
  });

  it("keeps a failure beyond the required stage recorded, and a Job found bootstrap by its label", () => {
    let state = observation({
      require: "bootstrapped",
      resources: [
        { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate" },
        { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      ],
    });
    state = recordReading(state, keys.api, { uid: uid("3"), generation: 7, reading: failed("ImagePullBackOff", "pod api-x container api: ImagePullBackOff") }, seconds(3)).state;
    state = recordReading(
      state,
      keys.migrate,
      { uid: uid("1"), generation: 1, labels: { "stagewatch.io/bootstrap": "true" }, reading: pending(undefined, "0/1 completions") },
      seconds(4),
    ).state;
    expect(labelledBootstrapKeys(state)).toEqual([keys.migrate]);
    const result = resumeObservation({
      observationId: state.observationId,
      request: observationRequest({
        require: "bootstrapped",
        resources: [
          { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate" },
          { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
        ],
      }),
      startedAtMs,
      deadlineMs: state.deadlineMs,
      verdict: toVerdict(state),
      labelledBootstrap: labelledBootstrapKeys(state),
    });
    if (!result.ok) throw new Error("did not resume");
    expect(result.value.resources.get(keys.api)?.reading).toMatchObject({ state: "failed", reason: "ImagePullBackOff" });
    expect(result.value.resources.get(keys.migrate)?.bootstrap).toBe(true);
    expect(result.value.tally.bootstrapJobs).toBe(1);
  });
});

describe("resuming a verification window", () => {
  it("keeps the window's start and end: an adopter reaches verified when the first owner would have", () => {
    const verify = { windowSeconds: 120 };
    let state = observation({ require: "verified", verify });
    state = markCachesSynced(state, seconds(1)).state;
    for (const [key, n] of [[keys.migrate, "1"], [keys.config, "2"], [keys.api, "3"]] as const) {
      state = recordReading(state, key, { uid: uid(n), generation: 7, reading: settled("done") }, seconds(5)).state;
    }
    expect(state.reached).toBe("healthy");
    const verdict = toVerdict(advanceClock(state, seconds(60)).state);
    expect(verdict.verification).toEqual({ windowSeconds: 120, startedAt: "2026-11-29T10:00:05.000Z", endsAt: "2026-11-29T10:02:05.000Z", pods: [] });

    const result = resumeObservation({ observationId: state.observationId, request: observationRequest({ require: "verified", verify }), startedAtMs, deadlineMs: state.deadlineMs, verdict });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const adopted = result.value;
    expect(nextWakeAt(adopted)).toBe(seconds(125));
    expect(advanceClock(adopted, seconds(124.999)).state.outcome).toBe("in_progress");
    const done = advanceClock(adopted, seconds(125));
    expect(done.changes.map((change) => change.type)).toEqual(["stage", "verdict"]);
    expect(toVerdict(done.state)).toMatchObject({ outcome: "succeeded", reached: "verified", decidedAt: "2026-11-29T10:02:05.000Z" });
  });
});

// The reducer's running aggregates (state.tally, state.deletionGraceEnds) against a recount from
// the resources themselves, after every step of realistic and of seeded random event sequences; and
// the fast path: a reading that changes nothing leaves the state as it was.
import { describe, expect, it } from "vitest";
import { keys, observation, seconds } from "../../../test/fixtures/observation.js";
import { uidOf } from "../../../test/fixtures/kube/meta.js";
import {
  advanceClock,
  markCachesSynced,
  nextWakeAt,
  recordAccessProblem,
  recordDeletion,
  recordReading,
  type ObservedObject,
} from "./observation.js";
import { factsOf, type ObservationState, type ObservationStep } from "./observationState.js";
import { failed, pending, settled, type ResourceReading } from "../rules/reading.js";
import { blockedStage, stageRank } from "../contract/stages.js";

/** What the tally must say, counted the slow way. */
function recount(state: ObservationState) {
  const all = [...state.resources.values()];
  const count = (holds: (r: (typeof all)[number]) => boolean) => all.filter(holds).length;
  const isSettled = (r: (typeof all)[number]) => r.reading.state === "settled";
  return {
    applied: count((r) => r.applied),
    settled: count(isSettled),
    bootstrapJobs: count((r) => r.bootstrap),
    holdouts: {
      applied: count((r) => !r.applied),
      bootstrapped: count((r) => r.bootstrap && !isSettled(r)),
      healthy: count((r) => !isSettled(r)),
    },
    unseen: count((r) => r.reading.state === "pending" && r.uid === undefined && r.deletedAtMs === undefined),
  };
}

function recountGraceEnds(state: ObservationState): Map<string, number> {
  return new Map(
    [...state.resources]
      .filter(([, r]) => r.reading.state === "pending" && r.deletedAtMs !== undefined)
      .map(([key, r]) => [key, (r.deletedAtMs ?? 0) + state.absentGraceMs]),
  );
}

/** nextWakeAt as the reducer computed it before it kept aggregates: a scan of every resource. */
function wakeByScan(state: ObservationState): number | undefined {
  if (state.outcome !== "in_progress") return undefined;
  const ends = [...state.resources.values()].flatMap((r) => {
    if (r.reading.state !== "pending") return [];
    if (r.deletedAtMs !== undefined) return [r.deletedAtMs + state.absentGraceMs];
    if (r.uid === undefined && state.cachesSyncedAtMs !== undefined) return [state.cachesSyncedAtMs + state.absentGraceMs];
    return [];
  });
  return Math.min(state.deadlineMs, ...ends);
}

function expectConsistent(state: ObservationState): void {
  expect(state.tally).toEqual(recount(state));
  expect(new Map(state.deletionGraceEnds)).toEqual(recountGraceEnds(state));
  expect(nextWakeAt(state)).toBe(wakeByScan(state));
  if (state.outcome === "in_progress") {
    // What lets conclude look only at the resource just written: nothing failed blocks a required stage.
    const fatal = [...state.resources.values()].filter((r) => {
      const stage = r.reading.state === "failed" ? blockedStage(factsOf(r), state.reached) : undefined;
      return stage !== undefined && stageRank(stage) <= stageRank(state.required);
    });
    expect(fatal).toEqual([]);
  }
}

function read(state: ObservationState, key: string, reading: ResourceReading, atSeconds: number, object: Partial<ObservedObject> = {}): ObservationStep {
  return recordReading(state, key, { uid: uidOf(key), generation: 7, reading, ...object }, seconds(atSeconds));
}

const rolling = pending(undefined, "1/3 replicas ready, 3 updated");
const running = pending(undefined, "0/1 completions, 1 active");

describe("tally", () => {
  it("starts with every declared bootstrap Job counted and every resource unseen", () => {
    const state = observation();
    expect(state.tally).toEqual({ applied: 0, settled: 0, bootstrapJobs: 1, holdouts: { applied: 3, bootstrapped: 1, healthy: 3 }, unseen: 3 });
    expectConsistent(state);
  });

  it("follows settle, delete within grace, re-create and a late delete of the old incarnation", () => {
    const steps: ((state: ObservationState) => ObservationStep)[] = [
      (s) => markCachesSynced(s, seconds(1)),
      (s) => read(s, keys.config, settled("exists"), 2),
      (s) => read(s, keys.migrate, running, 2),
      (s) => read(s, keys.api, rolling, 3),
      (s) => read(s, keys.migrate, settled("1/1 completions"), 40),
      // The Job's TTL deletes it: settled stays settled, no grace starts.
      (s) => recordDeletion(s, keys.migrate, uidOf(keys.migrate), seconds(45)),
      (s) => recordDeletion(s, keys.api, uidOf(keys.api), seconds(50)),
      (s) => read(s, keys.api, pending(undefined, "0/3 replicas ready, 0 updated"), 55, { uid: uidOf("api, second incarnation") }),
      (s) => recordDeletion(s, keys.api, uidOf(keys.api), seconds(56)),
      (s) => advanceClock(s, seconds(100)),
    ];
    let state = observation();
    const tallies = steps.map((next) => {
      state = next(state).state;
      expectConsistent(state);
      return { applied: state.tally.applied, settled: state.tally.settled, unseen: state.tally.unseen, graces: state.deletionGraceEnds.size };
    });
    expect(tallies).toEqual([
      { applied: 0, settled: 0, unseen: 3, graces: 0 },
      { applied: 1, settled: 1, unseen: 2, graces: 0 },
      { applied: 2, settled: 1, unseen: 1, graces: 0 },
      { applied: 3, settled: 1, unseen: 0, graces: 0 },
      { applied: 3, settled: 2, unseen: 0, graces: 0 },
      { applied: 3, settled: 2, unseen: 0, graces: 0 },
      { applied: 2, settled: 2, unseen: 0, graces: 1 },
      { applied: 3, settled: 2, unseen: 0, graces: 0 },
      { applied: 3, settled: 2, unseen: 0, graces: 0 },
      { applied: 3, settled: 2, unseen: 0, graces: 0 },
    ]);
    expect(state.outcome).toBe("in_progress");
  });

  it("counts a resource whose grace ran out as failed, neither applied nor unseen", () => {
    let state = markCachesSynced(observation({ require: "bootstrapped" }), seconds(1)).state;
    state = read(state, keys.migrate, running, 2).state;
    state = read(state, keys.config, settled("exists"), 2).state;
    state = advanceClock(state, seconds(11)).state;
    expectConsistent(state);
    expect(state.outcome).toBe("failed");
    expect(state.tally).toMatchObject({ applied: 2, unseen: 0 });
    expect(state.resources.get(keys.api)?.reading).toMatchObject({ state: "failed", reason: "NotFound" });
  });

  it("stays right through a timeout and a refused read", () => {
    let state = read(observation(), keys.config, settled("exists"), 2).state;
    state = recordAccessProblem(state, keys.api, { reason: "Forbidden", verb: "list", resource: "deployments", namespace: "payments", message: "forbidden" }, seconds(3)).state;
    expectConsistent(state);
    expect(state.tally).toMatchObject({ unseen: 1, holdouts: { applied: 2 } });
    state = advanceClock(state, seconds(300)).state;
    expectConsistent(state);
  });

  it("moves a Job into bootstrapJobs when a reading carries the bootstrap label", () => {
    let state = observation({
      resources: [
        { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate" },
        { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      ],
    });
    expect(state.tally.bootstrapJobs).toBe(0);
    state = read(state, keys.migrate, running, 2, { labels: { "stagewatch.io/bootstrap": "schema" } }).state;
    expect(state.tally).toMatchObject({ bootstrapJobs: 1, holdouts: { bootstrapped: 1 } });
    expectConsistent(state);
  });
});

describe("seeded random event sequences", () => {
  /** mulberry32: a small seeded generator, so a failing sequence replays exactly. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const readings: ResourceReading[] = [
    rolling,
    running,
    pending("ProgressDeadlineExceeded", "1/3 replicas ready, 3 updated; ProgressDeadlineExceeded"),
    settled("exists"),
    settled("1/1 completions"),
    failed("ImagePullBackOff", "0/3 replicas ready; pod api-7f9c6d8b5-x2k8p container api: ImagePullBackOff"),
    failed("BackoffLimitExceeded", "Job has reached the specified backoff limit"),
  ];

  it.each(Array.from({ length: 24 }, (_, i) => i + 1))("seed %i: the aggregates match a recount after every step", (seed) => {
    const next = random(seed);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const require = pick(["applied", "bootstrapped", "healthy"] as const);
    let state = observation({ require, absentGraceSeconds: 5 });
    const all = [...state.resources.keys()];
    let at = 0;
    for (let i = 0; i < 80 && state.outcome === "in_progress"; i += 1) {
      at += Math.floor(next() * 4);
      const key = pick(all);
      const incarnation = `${key} #${Math.floor(next() * 2)}`;
      const roll = next();
      if (roll < 0.55) {
        state = read(state, key, pick(readings), at, { uid: uidOf(incarnation), generation: pick([6, 7]), labels: next() < 0.2 ? { "stagewatch.io/bootstrap": "x" } : undefined }).state;
      } else if (roll < 0.75) {
        state = recordDeletion(state, key, state.resources.get(key)?.uid ?? uidOf(incarnation), seconds(at)).state;
      } else if (roll < 0.8) {
        state = recordAccessProblem(state, key, { reason: "Forbidden", verb: "watch", resource: "jobs", message: "forbidden" }, seconds(at)).state;
      } else if (roll < 0.9) {
        state = markCachesSynced(state, seconds(at)).state;
      } else {
        state = advanceClock(state, seconds(at)).state;
      }
      expectConsistent(state);
    }
  });
});

describe("a reading that changes nothing", () => {
  it("returns the state it was given, with no changes", () => {
    const state = read(observation(), keys.api, rolling, 3).state;
    const again = read(state, keys.api, pending(undefined, "1/3 replicas ready, 3 updated"), 4);
    expect(again.changes).toEqual([]);
    expect(again.state).toBe(state);
  });

  it("still records a new message under the same state and reason, announcing nothing", () => {
    const state = read(observation(), keys.api, rolling, 3).state;
    const moved = read(state, keys.api, pending(undefined, "2/3 replicas ready, 3 updated"), 4);
    expect(moved.changes).toEqual([]);
    expect(moved.state.resources.get(keys.api)?.reading.message).toBe("2/3 replicas ready, 3 updated");
  });

  it("still lets a due timer fire", () => {
    let state = markCachesSynced(observation(), seconds(1)).state;
    state = read(state, keys.api, rolling, 3).state;
    const late = read(state, keys.api, rolling, 11);
    expect(late.state.outcome).toBe("failed");
    expect(late.state.decision?.failure?.reason).toBe("NotFound");
  });
});

import { describe, expect, it } from "vitest";
import { leaseHeldUntil, type Heartbeat, type Lease } from "../../bus/index.js";
import { adoptionCause, heartbeatLapsesAt, heartbeatOf, leaseHeldBy, leaseTimingFor, releasedLease, type LeaseHolder } from "./leasePolicy.js";

const now = Date.parse("2026-11-29T10:00:00Z");
const timing = leaseTimingFor(15_000);
const entry = (lease: Lease) => ({ observationId: "obs-1", lease, revision: 7 });
/** Replica a, in the incarnation it runs now, and the one before its restart. */
const a: LeaseHolder = { replicaId: "replica-a", incarnation: "a-2", sinceMs: now - 60_000 };
const aBefore: LeaseHolder = { ...a, incarnation: "a-1" };
/** This replica: b, running since 2 s ago. */
const b: LeaseHolder = { replicaId: "replica-b", incarnation: "b-2", sinceMs: now - 2_000 };
const bBefore: LeaseHolder = { ...b, incarnation: "b-1" };
/** A lease taken `agoMs` ago by `holder`, and `holder`'s heartbeat written `beatAgoMs` ago. */
const lease = (holder: LeaseHolder, agoMs: number) => entry(leaseHeldBy(holder, now - agoMs, timing));
const beat = (holder: LeaseHolder, agoMs: number): Heartbeat => heartbeatOf(holder, now - agoMs, timing);
/** Written by a version before heartbeats: no incarnation, renewed by its holder. */
const legacy = (holder: string, agoMs: number) => entry({ holder, expiresAt: new Date(now - agoMs + timing.durationMs).toISOString() });

describe("leaseHeldUntil", () => {
  it("is the lease's own term, or its holder's heartbeat of the same incarnation when later", () => {
    const taken = leaseHeldBy(a, now - 60_000, timing);
    expect(leaseHeldUntil(taken, undefined)).toBe(now - 45_000);
    expect(leaseHeldUntil(taken, beat(a, 2_000))).toBe(now + 13_000);
    // The restarted holder's heartbeat, or another replica's, keeps nothing of the old incarnation alive.
    expect(leaseHeldUntil(leaseHeldBy(aBefore, now - 60_000, timing), beat(a, 2_000))).toBe(now - 45_000);
    expect(leaseHeldUntil(taken, beat(b, 2_000))).toBe(now - 45_000);
    // A lease just taken outlasts a heartbeat written before it.
    expect(leaseHeldUntil(leaseHeldBy(a, now - 1_000, timing), beat(a, 4_000))).toBe(now + 14_000);
    expect(leaseHeldUntil(releasedLease("replica-a", now + 60_000), beat(a, 0))).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe("adoptionCause", () => {
  it.each([
    ["another replica's lease, taken long ago, its heartbeat fresh", lease(a, 600_000), beat(a, 4_000), undefined],
    ["another replica's lease, its heartbeat stopped a lease duration ago (a crash)", lease(a, 600_000), beat(a, 15_000), "expired"],
    ["another replica's lease, no heartbeat at all", lease(a, 600_000), undefined, "expired"],
    ["another replica's lease taken a moment ago, before its heartbeat (written once, at start) went stale", lease(a, 1_000), beat(a, 20_000), undefined],
    ["another replica's lease of an incarnation before its restart, the new one's heartbeat fresh", lease(aBefore, 600_000), beat(a, 1_000), "expired"],
    ["another replica's lease of an incarnation before its restart, taken a moment before it", lease(aBefore, 3_000), beat(a, 1_000), undefined],
    ["a lease handed back on shutdown, however fresh its heartbeat", entry(releasedLease("replica-a", now + 60_000)), beat(a, 0), "released"],
    ["this replica's own lease of the incarnation before a restart under the same id, however fresh", lease(bBefore, 1_000), beat(b, 0), "expired"],
    ["this replica's own lease of this incarnation that it no longer holds (its removal failed), within its term", lease(b, 10_000), beat(b, 0), undefined],
    ["this replica's own lease of this incarnation that it no longer holds, past its term: its heartbeat would keep it for ever", lease(b, 16_000), beat(b, 0), "expired"],
    ["a lease from before heartbeats, renewed lately", legacy("replica-a", 5_000), undefined, undefined],
    ["a lease from before heartbeats, not renewed for a lease duration", legacy("replica-a", 15_000), beat(a, 0), "expired"],
    ["this replica's own lease from before heartbeats, written before it started", legacy("replica-b", 3_000), undefined, "expired"],
    ["this replica's own lease from before heartbeats, written since it started", legacy("replica-b", 1_000), undefined, undefined],
  ] as const)("%s", (_, found, heartbeat, cause) => {
    expect(adoptionCause(found, heartbeat, b, now, false, timing)).toBe(cause);
  });

  it("never takes what this process holds", () => {
    expect(adoptionCause(entry(releasedLease("replica-b", now)), undefined, b, now, true, timing)).toBeUndefined();
    expect(adoptionCause(lease(b, 600_000), undefined, b, now, true, timing)).toBeUndefined();
  });
});

describe("heartbeatLapsesAt", () => {
  it("is a tick before the last stored heartbeat expires, so the holder stops before anyone may take over", () => {
    const lapses = heartbeatLapsesAt(now, timing);
    expect(lapses).toBe(now + 15_000 - 500);
    const othersMayTakeFrom = Date.parse(heartbeatOf(a, now, timing).expiresAt);
    expect(lapses).toBeLessThan(othersMayTakeFrom);
  });
});

describe("leaseTimingFor", () => {
  it("beats three times per lease and scans at most every second", () => {
    expect(leaseTimingFor(15_000)).toEqual({ durationMs: 15_000, renewEveryMs: 5_000, scanEveryMs: 1_000 });
    expect(leaseTimingFor(3_000)).toEqual({ durationMs: 3_000, renewEveryMs: 1_000, scanEveryMs: 300 });
  });
});

import { describe, expect, it } from "vitest";
import { adoptionCause, leaseHeldBy, leaseTimingFor, releasedLease } from "./leasePolicy.js";

const now = Date.parse("2026-11-29T10:00:00Z");
const timing = leaseTimingFor(15_000);
const entry = (lease: ReturnType<typeof leaseHeldBy>) => ({ observationId: "obs-1", lease, revision: 7 });

describe("adoptionCause", () => {
  it.each([
    ["a lease another replica renewed lately", entry(leaseHeldBy("replica-a", now - 5_000, timing)), undefined],
    ["a lease whose holder stopped renewing", entry(leaseHeldBy("replica-a", now - 15_000, timing)), "expired"],
    ["a lease handed back on shutdown, however fresh", entry(releasedLease("replica-a", now + 60_000)), "released"],
    ["this replica's own lease from before a restart under the same id", entry(leaseHeldBy("replica-b", now - 3_000, timing)), "expired"],
    ["this replica's own lease written since it started (by a create not yet acknowledged)", entry(leaseHeldBy("replica-b", now - 1_000, timing)), undefined],
  ] as const)("%s: %s", (_, lease, cause) => {
    expect(adoptionCause(lease, "replica-b", now, false, now - 2_000, timing)).toBe(cause);
  });

  it("never takes what this process holds", () => {
    expect(adoptionCause(entry(releasedLease("replica-b", now)), "replica-b", now, true, now - 2_000, timing)).toBeUndefined();
  });
});

describe("leaseTimingFor", () => {
  it("renews three times per lease and scans at most every second", () => {
    expect(leaseTimingFor(15_000)).toEqual({ durationMs: 15_000, renewEveryMs: 5_000, scanEveryMs: 1_000 });
    expect(leaseTimingFor(3_000)).toEqual({ durationMs: 3_000, renewEveryMs: 1_000, scanEveryMs: 300 });
  });
});

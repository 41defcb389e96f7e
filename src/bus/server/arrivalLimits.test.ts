// Each request kind's bound per caller, counted at arrival on a clock the test moves.
import { describe, expect, it } from "vitest";
import { defaultCallerQuotas, type CallerQuotas } from "../../tenants/index.js";
import { ArrivalLimits, type Arrival, type ArrivingCaller } from "./arrivalLimits.js";
import type { RequestKind } from "../subjects.js";

const teamA: ArrivingCaller = { id: "TEAM_A", who: "tenant TEAM_A", quotas: { requestsPerSecond: 2, getsPerSecond: 3, cancelsPerSecond: 1, listsPerSecond: 1, pending: 50 } };
const teamB: ArrivingCaller = { id: "TEAM_B", who: "tenant TEAM_B", quotas: { pending: 4 } };

function limitsAt(options: { defaults?: Partial<CallerQuotas>; replicas?: number } = {}) {
  const clock = { ms: 0 };
  const limits = new ArrivalLimits({ defaults: { ...defaultCallerQuotas, ...options.defaults }, replicas: options.replicas ?? 1, now: () => clock.ms });
  const outcomes = (from: ArrivingCaller, kind: RequestKind, count: number) =>
    Array.from({ length: count }, () => limits.arrive(from, kind)).map((arrival) => (arrival.ok ? "ok" : arrival.refusal.limit));
  return { clock, limits, outcomes };
}

const message = (arrival: Arrival) => (arrival.ok ? "admitted" : arrival.refusal.message);

describe("ArrivalLimits", () => {
  it.each<[RequestKind, number, string]>([
    ["observe", 2, "requestsPerSecond"],
    ["get", 3, "getsPerSecond"],
    ["cancel", 1, "cancelsPerSecond"],
    ["list", 1, "listsPerSecond"],
  ])("%s: a burst of the tenant's %i a second passes, the next is refused naming %s, and a second later it passes again", (kind, perSecond, limit) => {
    const { clock, outcomes } = limitsAt();
    expect(outcomes(teamA, kind, perSecond + 1)).toEqual([...Array<string>(perSecond).fill("ok"), limit]);
    clock.ms += 1_000;
    expect(outcomes(teamA, kind, 1)).toEqual(["ok"]);
  });

  it("counts each kind on its own bucket and each caller on its own", () => {
    const { outcomes } = limitsAt({ defaults: { listsPerSecond: 1 } });
    expect(outcomes(teamA, "list", 2)).toEqual(["ok", "listsPerSecond"]);
    expect(outcomes(teamA, "get", 1)).toEqual(["ok"]);
    expect(outcomes(teamB, "list", 2)).toEqual(["ok", "listsPerSecond"]);
  });

  it("a tenant's allowed rate, sent while another floods, is never refused: each request is counted when it arrives", () => {
    const { clock, limits } = limitsAt({ defaults: { getsPerSecond: 100, pendingPerCaller: 10_000 } });
    const refusedA: string[] = [];
    // 20 s: TEAM_B sends 900 gets every second; TEAM_A sends its 2 observes a second, evenly.
    for (let second = 0; second < 20; second++) {
      for (let i = 0; i < 900; i++) limits.arrive(teamB, "get");
      for (const offsetMs of [0, 500]) {
        clock.ms = second * 1_000 + offsetMs;
        const arrival = limits.arrive(teamA, "observe");
        if (!arrival.ok) refusedA.push(arrival.refusal.message);
        else arrival.done();
      }
    }
    expect(refusedA).toEqual([]);
  });

  it("bounds requests pending at once, every kind together, until they are answered", () => {
    const { limits } = limitsAt();
    const admitted = (["get", "list", "observe", "cancel"] as const).map((kind) => limits.arrive(teamB, kind));
    expect(admitted.every((arrival) => arrival.ok)).toBe(true);
    const fifth = limits.arrive(teamB, "get");
    expect(fifth).toMatchObject({ ok: false, refusal: { code: "quota", limit: "pendingPerCaller" } });
    expect(message(fifth)).toBe("tenant TEAM_B has 4 of 4 requests pending on this replica (limit pendingPerCaller 4); retry when some are answered");
    expect(limits.pendingOf("TEAM_B")).toBe(4);
    const first = admitted[0]!;
    if (first.ok) {
      first.done();
      first.done();
    }
    expect(limits.pendingOf("TEAM_B")).toBe(3);
    expect(limits.arrive(teamB, "get").ok).toBe(true);
    expect(limits.pendingOf("TEAM_A")).toBe(0);
  });

  it("refusals say how full: the caller's count against this replica's share and where the share comes from", () => {
    const { limits } = limitsAt({ replicas: 2 });
    const observes = [limits.arrive(teamA, "observe"), limits.arrive(teamA, "observe")];
    expect(observes.map((arrival) => arrival.ok)).toEqual([true, false]);
    expect(message(observes[1]!)).toBe("tenant TEAM_A has used 1 of 1 observe requests a second on this replica (limit requestsPerSecond 1 (2 over 2 replicas)); retry in a second");
    const pendingOfTwo = [1, 2, 3].map(() => limits.arrive(teamB, "get"));
    expect(message(pendingOfTwo[2]!)).toBe("tenant TEAM_B has 2 of 2 requests pending on this replica (limit pendingPerCaller 2 (4 over 2 replicas)); retry when some are answered");
  });

  it("a rate share below one a second still lets one request through, then one every so often", () => {
    const { clock, outcomes } = limitsAt({ replicas: 4 });
    // TEAM_A's 1 list a second over 4 replicas: a quarter a second here.
    expect(outcomes(teamA, "list", 2)).toEqual(["ok", "listsPerSecond"]);
    clock.ms += 2_000;
    expect(outcomes(teamA, "list", 1)).toEqual(["listsPerSecond"]);
    clock.ms += 2_000;
    expect(outcomes(teamA, "list", 1)).toEqual(["ok"]);
  });
});

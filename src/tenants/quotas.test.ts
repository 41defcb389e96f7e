// A tenant's quotas for the service as a whole, and each replica's share of them.
import { describe, expect, it } from "vitest";
import { defaultCallerQuotas, describeShare, parseTenantsFile, quotasOf, replicaShare, type QuotaName } from "./index.js";

const tenants = parseTenantsFile("tenants: {TEAM_A: {quotas: {inFlight: 50, requestsPerSecond: 10, listsPerSecond: 1, pending: 30}}, TEAM_B: {}}", "t.yaml");

describe("quotasOf", () => {
  it("takes the tenant's quotas and the service's defaults for what it leaves out", () => {
    expect(quotasOf(tenants.get("TEAM_A"), defaultCallerQuotas)).toEqual({ ...defaultCallerQuotas, inFlightPerCaller: 50, requestsPerSecond: 10, listsPerSecond: 1, pendingPerCaller: 30 });
    expect(quotasOf(tenants.get("TEAM_B"), defaultCallerQuotas)).toEqual(defaultCallerQuotas);
    expect(quotasOf(undefined, { ...defaultCallerQuotas, getsPerSecond: 7 }).getsPerSecond).toBe(7);
  });
});

describe("replicaShare", () => {
  const quotas = quotasOf(tenants.get("TEAM_A"), defaultCallerQuotas);
  it.each<[string, QuotaName, number, number, string]>([
    ["one replica: the quota itself", "inFlightPerCaller", 1, 50, "limit inFlightPerCaller 50"],
    ["a count over three replicas, rounded down: together at most the quota", "inFlightPerCaller", 3, 16, "limit inFlightPerCaller 16 (50 over 3 replicas)"],
    ["a count smaller than the replicas: one each", "pendingPerCaller", 40, 1, "limit pendingPerCaller 1 (30 over 40 replicas)"],
    ["a rate over three replicas, exactly", "requestsPerSecond", 3, 10 / 3, "limit requestsPerSecond 3.33 (10 over 3 replicas)"],
    ["a rate below one a second per replica", "listsPerSecond", 2, 0.5, "limit listsPerSecond 0.5 (1 over 2 replicas)"],
    ["zero or fewer replicas configured count as one", "inFlightPerCaller", 0, 50, "limit inFlightPerCaller 50"],
  ])("%s", (_, name, replicas, perReplica, described) => {
    const share = replicaShare(name, quotas[name], replicas);
    expect(share.perReplica).toBeCloseTo(perReplica, 10);
    expect(describeShare(share)).toBe(described);
  });
});

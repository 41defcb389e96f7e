// The tenants file: what it accepts, what it refuses (each problem naming its field), and the
// checks a caller's entry makes.
import { describe, expect, it } from "vitest";
import { forbiddenParts, maySee, mayObserveIn, parseTenantsFile, soleCaller, TenantsFileError } from "./index.js";

const file = `
tenants:
  TEAM_A:
    namespaces: [team-a, "team-a-*"]
    logTails: true
    quotas: {inFlight: 20, requestsPerSecond: 5}
  TEAM_B: {namespaces: [team-b], clusterScoped: true}
  PLATFORM: {admin: true}
`;

const refusal = (text: string) => {
  try {
    parseTenantsFile(text, "tenants.yaml");
  } catch (error) {
    if (error instanceof TenantsFileError) return error.message;
    throw error;
  }
  throw new Error("accepted");
};

describe("parseTenantsFile", () => {
  it("reads each tenant, defaults applied", () => {
    const tenants = parseTenantsFile(file, "tenants.yaml");
    expect(tenants.get("TEAM_A")).toEqual({
      id: "TEAM_A",
      tenant: "TEAM_A",
      admin: false,
      namespaces: ["team-a", "team-a-*"],
      clusterScoped: false,
      logTails: true,
      quotas: { inFlight: 20, requestsPerSecond: 5 },
    });
    expect(tenants.get("PLATFORM")).toMatchObject({ admin: true, clusterScoped: true, logTails: true });
    expect(parseTenantsFile(JSON.stringify({ tenants: { X: {} } }), "t.json").get("X")).toMatchObject({ namespaces: [], admin: false });
  });

  it.each([
    ["not YAML", "tenants: [", "tenants.yaml: (file): not YAML or JSON"],
    ["empty", "", "tenants.yaml: tenants: required"],
    ["no tenant", "tenants: {}", "tenants.yaml: tenants: at least one tenant"],
    ["a tenant id that is no subject token", "tenants: {TEAM.A: {}}", "tenants.yaml: tenants.TEAM.A: 1-64 letters, digits, '-' and '_'"],
    ["a bad pattern", "tenants: {A: {namespaces: [Team_A]}}", "tenants.yaml: tenants.A.namespaces[0]: a namespace name or a pattern"],
    ["a misspelt field", "tenants: {A: {logtails: true}}", "tenants.yaml: tenants.A.logtails: unknown field"],
    ["a quota of zero", "tenants: {A: {quotas: {inFlight: 0}}}", "tenants.yaml: tenants.A.quotas.inFlight:"],
    ["a misspelt quota", "tenants: {A: {quotas: {inflight: 3}}}", "tenants.yaml: tenants.A.quotas.inflight: unknown field"],
  ])("%s: refused naming the field", (_, text, message) => {
    expect(refusal(text)).toContain(message);
  });
});

describe("a caller's checks", () => {
  const tenants = parseTenantsFile(file, "tenants.yaml");
  const teamA = tenants.get("TEAM_A")!;
  const teamB = tenants.get("TEAM_B")!;

  it("namespace patterns match whole names; * is any run of name characters", () => {
    expect(["team-a", "team-a-eu", "team-a-"].map((ns) => mayObserveIn(teamA, ns))).toEqual([true, true, true]);
    expect(["team-ab", "x-team-a", "team-b"].map((ns) => mayObserveIn(teamA, ns))).toEqual([false, false, false]);
  });

  it("names each resource it may not observe, and log tails", () => {
    const identities = [
      { apiVersion: "apps/v1", kind: "Deployment", namespace: "team-b", name: "api" },
      { apiVersion: "v1", kind: "Namespace", name: "team-a" },
      { apiVersion: "v1", kind: "ConfigMap", namespace: "team-a-eu", name: "config" },
    ];
    expect(forbiddenParts(teamA, identities, true)).toEqual([
      { path: "resources[0].namespace", message: "Deployment team-b/api: namespace team-b is not one of tenant TEAM_A's (team-a, team-a-*)" },
      { path: "resources[1]", message: "Namespace team-a: tenant TEAM_A may not name cluster-scoped kinds" },
    ]);
    expect(forbiddenParts(teamB, identities.slice(1, 2), true)).toEqual([{ path: "logs", message: "tenant TEAM_B may not ask for log tails" }]);
    expect(forbiddenParts(soleCaller, identities, true)).toEqual([]);
  });

  it("sees its own tenant's observations; an admin and the sole caller see all", () => {
    expect([maySee(teamA, "TEAM_A"), maySee(teamA, "TEAM_B"), maySee(teamA, undefined)]).toEqual([true, false, false]);
    expect([maySee(tenants.get("PLATFORM")!, "TEAM_B"), maySee(soleCaller, "TEAM_B"), maySee(soleCaller, undefined)]).toEqual([true, true, true]);
  });
});

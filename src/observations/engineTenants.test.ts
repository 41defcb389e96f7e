// The engine with callers of a tenants file: what a tenant may observe (namespaces as resolved,
// cluster-scoped kinds, log tails), what it sees of others' observations (nothing: not found),
// its own idempotency keys, and its tenant on the record, the verdict and every event.
import { describe, expect, it } from "vitest";
import { deployment } from "../../test/fixtures/kube/workloads.js";
import { parseTenantsFile } from "../tenants/index.js";
import { engineHarness, observationRequest } from "./testing/index.js";

const tenants = parseTenantsFile(
  `tenants:
  TEAM_A: {namespaces: [payments, "payments-*"], logTails: true}
  TEAM_B: {namespaces: [shop]}
  PLATFORM: {admin: true}
`,
  "tenants.yaml",
);
const teamA = tenants.get("TEAM_A")!;
const teamB = tenants.get("TEAM_B")!;
const platform = tenants.get("PLATFORM")!;

describe("what a tenant may observe", () => {
  it("a resource outside its namespaces, as defaultNamespace resolves it: forbidden naming the resource, nothing stored", async () => {
    const h = engineHarness();
    const result = await h.observe(observationRequest(), teamB);
    expect(result).toEqual({
      ok: false,
      code: "forbidden",
      message: "outside what tenant TEAM_B may observe",
      issues: [{ path: "resources[0].namespace", message: "Deployment payments/api: namespace payments is not one of tenant TEAM_B's (shop)" }],
    });
    expect(h.records.ids()).toEqual([]);
    expect(h.transport.watches()).toEqual([]);
  });

  it("a cluster-scoped kind, and log tails, where the tenant may not: forbidden; an admin may", async () => {
    const h = engineHarness();
    const request = observationRequest({ defaultNamespace: "shop", logs: true, resources: [{ apiVersion: "v1", kind: "Namespace", name: "shop" }, { apiVersion: "apps/v1", kind: "Deployment", name: "api" }] });
    expect(await h.observe(request, teamB)).toMatchObject({
      ok: false,
      code: "forbidden",
      issues: [
        { path: "resources[0]", message: "Namespace shop: tenant TEAM_B may not name cluster-scoped kinds" },
        { path: "logs", message: "tenant TEAM_B may not ask for log tails" },
      ],
    });
    expect(await h.observe(request, platform)).toMatchObject({ ok: true });
  });

  it("a pattern matches: TEAM_A in payments-eu", async () => {
    const h = engineHarness();
    expect(await h.observe(observationRequest({ defaultNamespace: "payments-eu", logs: true }), teamA)).toMatchObject({ ok: true, replay: false });
  });
});

describe("another tenant's observation", () => {
  it("get and cancel by TEAM_B: not found, the observation untouched; TEAM_A and the admin see it", async () => {
    const h = engineHarness();
    h.cluster.put(deployment({ status: null }));
    const id = await h.start(observationRequest(), teamA);
    expect(await h.engine.get(id, teamB)).toBeUndefined();
    expect(await h.engine.cancel(id, "not yours", teamB)).toBeUndefined();
    expect(await h.engine.get(id, teamA)).toMatchObject({ outcome: "in_progress", tenant: "TEAM_A" });
    expect(await h.engine.cancel(id, "ops", platform)).toMatchObject({ outcome: "cancelled", tenant: "TEAM_A" });
  });

  it("with no replica driving it (cancel through the record): not found to TEAM_B too", async () => {
    const h = engineHarness();
    h.cluster.put(deployment({ status: null }));
    const id = await h.start(observationRequest(), teamA);
    const other = h.replica("replica-b");
    expect(await other.engine.cancel(id, "not yours", teamB)).toBeUndefined();
    expect(await other.engine.get(id, teamB)).toBeUndefined();
    expect(await other.engine.get(id, teamA)).toMatchObject({ outcome: "in_progress" });
  });
});

describe("keys and what carries the tenant", () => {
  it("the same key of two tenants is two observations; each replays its own; a conflict names no id", async () => {
    const h = engineHarness();
    const a = await h.observe(observationRequest({ defaultNamespace: "payments" }), teamA);
    const b = await h.observe(observationRequest({ defaultNamespace: "shop" }), teamB);
    expect([a, b]).toEqual([
      { ok: true, observationId: "obs-1", replay: false },
      { ok: true, observationId: "obs-2", replay: false },
    ]);
    expect(await h.observe(observationRequest({ defaultNamespace: "shop" }), teamB)).toEqual({ ok: true, observationId: "obs-2", replay: true });
    const conflict = await h.observe(observationRequest({ defaultNamespace: "payments", timeoutSeconds: 60 }), teamA);
    expect(conflict).toEqual({ ok: false, code: "conflict", message: "key 'ci-4812/payments' already names another observation, with other content" });
  });

  it("the record, the verdict and every event carry the tenant", async () => {
    const h = engineHarness();
    h.cluster.put(deployment({ replicas: 1 }));
    const id = await h.start(observationRequest(), teamA);
    expect((await h.records.getRecord(id))?.record).toMatchObject({ tenant: "TEAM_A", verdict: { tenant: "TEAM_A", outcome: "succeeded" } });
    const events = h.events.events.filter((event) => event.observationId === id);
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((event) => event.tenant === "TEAM_A")).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: "verdict", tenant: "TEAM_A", verdict: { tenant: "TEAM_A" } });
  });

  it("without a tenants file nothing carries a tenant", async () => {
    const h = engineHarness();
    h.cluster.put(deployment({ replicas: 1 }));
    const id = await h.start(observationRequest());
    expect((await h.records.getRecord(id))?.record).not.toHaveProperty("tenant");
    expect(h.events.events.some((event) => "tenant" in event)).toBe(false);
  });
});

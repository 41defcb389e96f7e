// The engine's limits (docs/operator/limits.md): admission (in flight per replica and per caller;
// requests a second are counted on arrival, src/bus/server/arrivalLimits.ts), records and events under the
// server's max_payload (refused `too_large` when a record could not fit, compacted when readings
// would grow one past it).
import { describe, expect, it } from "vitest";
import { legacyWarning } from "../../test/fixtures/kube/events.js";
import { replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { serviceSigner } from "../signing/index.js";
import { TenantEntry, tenantCaller } from "../tenants/index.js";
import { newKey } from "../signing/testing/keys.js";
import { jsonBytes, payloadReserveBytes } from "./records/recordCompaction.js";
import { drainMicrotasks, engineHarness, observationRequest, type EngineHarness } from "./testing/index.js";

const requestFor = (key: string, resources = 1) =>
  observationRequest({
    key,
    resources: Array.from({ length: resources }, (_, i) => ({ apiVersion: "apps/v1", kind: "Deployment", name: `api-${i}` })),
  });

function blockedRollout(h: EngineHarness, name: string, message: string): void {
  const api = rollingOutDeployment({ name, replicas: 3, updated: 0, ready: 0 });
  const current = replicaSet(api, { name: `${name}-7f9c6d8b5`, revision: "4", replicas: 3, ready: 0 });
  h.cluster.put(api);
  h.cluster.put(current);
  h.cluster.put(legacyWarning(current, { suffix: `${name}-warn`, reason: "FailedCreate", message, count: 1, lastTimestamp: "2026-11-29T10:00:01Z" }));
}

describe("admission", () => {
  it("refuses a caller past its observations in flight with quota naming the limit, answers a repeat of one in flight as a replay, and admits again once one is decided", async () => {
    const h = engineHarness({ admissionLimits: { inFlightPerCaller: 2 } });
    const first = await h.start(requestFor("k1"));
    await h.start(requestFor("k2"));
    const third = await h.observe(requestFor("k3"));
    expect(third).toMatchObject({ ok: false, code: "quota" });
    expect(third.ok || third.message).toContain("limit inFlightPerCaller 2");
    expect(await h.observe(requestFor("k1"))).toEqual({ ok: true, observationId: first, replay: true });

    await h.engine.cancel(first, "done");
    await drainMicrotasks();
    expect(await h.observe(requestFor("k3"))).toMatchObject({ ok: true, replay: false });
    expect(h.engine.admittedCount).toBe(2);
  });

  it("refuses past the replica's observations in flight, every caller together", async () => {
    const h = engineHarness({ admissionLimits: { inFlight: 1 } });
    await h.start(requestFor("k1"));
    const second = await h.observe(requestFor("k2"), tenantCaller("ANOTHER", TenantEntry.parse({ admin: true })));
    expect(second).toMatchObject({ ok: false, code: "quota" });
    expect(second.ok || second.message).toContain("limit inFlight 1");
  });

  it("takes a tenant's inFlight for the service as a whole: this replica admits its share and says how full it is", async () => {
    const h = engineHarness({ admissionLimits: { replicas: 3, inFlight: 100 } });
    const teamB = tenantCaller("TEAM_B", TenantEntry.parse({ namespaces: ["*"], quotas: { inFlight: 7 } }));
    for (const key of ["k1", "k2"]) expect(await h.observe(requestFor(key), teamB)).toMatchObject({ ok: true });
    const third = await h.observe(requestFor("k3"), teamB);
    expect(third).toEqual({
      ok: false,
      code: "quota",
      message: "tenant TEAM_B has 2 of 2 observations in flight on this replica (limit inFlightPerCaller 2 (7 over 3 replicas); the replica 2 of 100); retry when some are decided",
      issues: [{ path: "(request)", message: expect.stringContaining("2 of 2") }],
    });
  });

  it("counts nothing for a request refused for other reasons", async () => {
    const h = engineHarness({ admissionLimits: { inFlightPerCaller: 1 } });
    const unknownKind = observationRequest({ key: "k0", resources: [{ apiVersion: "example.com/v1", kind: "Nothing", name: "x" }] });
    expect(await h.observe(unknownKind)).toMatchObject({ ok: false });
    expect(h.engine.admittedCount).toBe(0);
    await h.start(requestFor("k1"));
  });
});

describe("records and events under max_payload", () => {
  it("refuses too_large, naming resources and the bytes, a request whose record could not fit; nothing is stored or leased", async () => {
    const h = engineHarness({ maxPayloadBytes: 64 * 1024 });
    const result = await h.observe(requestFor("big", 300));
    expect(result).toMatchObject({ ok: false, code: "too_large", issues: [{ path: "resources" }] });
    expect(result.ok || result.message).toMatch(/could grow to \d+ bytes, over the 61440 the NATS server's max_payload leaves/);
    expect(await h.records.getClaim("big", undefined)).toBeUndefined();
    expect(h.first.leases.holds("obs-1")).toBe(false);
    expect(h.engine.admittedCount).toBe(0);
    await h.start(requestFor("small", 20));
  });

  it("compacts a record that readings would grow past the limit, stores every write under it, and publishes the verdict it stored, signed", async () => {
    const maxPayloadBytes = 40 * 1024;
    const signer = serviceSigner(newKey);
    const h = engineHarness({ maxPayloadBytes, signer });
    const written: number[] = [];
    const update = h.records.updateRecord.bind(h.records);
    h.records.updateRecord = (record, revision) => {
      written.push(jsonBytes(record));
      return update(record, revision);
    };
    const resources = 40;
    const longMessage = `Error creating: ${"exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1; ".repeat(20)}`;
    for (let i = 0; i < resources; i++) blockedRollout(h, `api-${i}`, longMessage);
    const id = await h.start({ ...requestFor("wide", resources), timeoutSeconds: 60 });
    await h.advance(2_000);
    const stored = (await h.records.getRecord(id))!.record;
    expect(stored.verdict!.resources.every((r) => r.state === "pending")).toBe(true);
    expect(jsonBytes(stored)).toBeLessThanOrEqual(maxPayloadBytes - payloadReserveBytes);

    await h.advance(60_000);
    const verdict = h.events.verdict(id);
    expect(verdict.outcome).toBe("timed_out");
    expect(written.length).toBeGreaterThan(0);
    expect(Math.max(...written)).toBeLessThanOrEqual(maxPayloadBytes - payloadReserveBytes);
    // The limit was at work: 40 readings of a kilobyte and more would not fit; each was cut.
    expect(resources * longMessage.length).toBeGreaterThan(maxPayloadBytes);
    expect(Math.max(...verdict.resources.map((r) => r.message?.length ?? 0))).toBeLessThanOrEqual(256);
    expect(verdict).toEqual((await h.records.getRecord(id))!.record.verdict);
    expect(signer.trustsVerdict(verdict, id).trusted).toBe(true);
    for (const event of h.events.of(id)) expect(jsonBytes(event)).toBeLessThanOrEqual(maxPayloadBytes - payloadReserveBytes);
  });
});

describe("Secrets only in the namespaces the service is given", () => {
  const secretIn = (namespace: string) => observationRequest({ key: `secret-${namespace}`, resources: [{ apiVersion: "v1", kind: "Secret", namespace, name: "db" }] });

  it("refuses a Secret elsewhere naming the field and the flag, and takes one there", async () => {
    const h = engineHarness({ secretNamespaces: ["payments"] });
    expect(await h.observe(secretIn("billing"))).toMatchObject({
      ok: false,
      code: "invalid_request",
      issues: [{ path: "resources[0].namespace", message: "not watched by this service (--secret-namespaces payments)" }],
    });
    expect(await h.observe(secretIn("payments"))).toMatchObject({ ok: true });
    expect(h.hub.namespacesOf("core/Secret")).toEqual(["payments"]);
    expect(h.hub.namespacesOf("apps/Deployment")).toBeUndefined();
  });

  it("with an empty list, refuses every Secret", async () => {
    const h = engineHarness({ secretNamespaces: [] });
    expect(await h.observe(secretIn("payments"))).toMatchObject({ issues: [{ message: "not watched by this service (--secret-namespaces (none))" }] });
  });
});


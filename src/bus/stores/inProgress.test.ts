// `list` from the lease table a replica's watch keeps: scoped to the caller's tenant before any read,
// so a tenant's list reads its own records only, and no lease or heartbeat is read from the bucket.
import { describe, expect, it } from "vitest";
import { parseTenantsFile, soleCaller } from "../../tenants/index.js";
import { listVisible, type LeaseTable } from "./inProgress.js";
import type { Heartbeat, Lease, LeaseEntry } from "./leaseStore.js";
import { RecordCorruptError, type ObservationRecord, type StoredRecord } from "./observationRecords.js";

const t0 = Date.parse("2026-12-01T10:00:00Z");
const at = (ms: number) => new Date(t0 + ms).toISOString();
const tenants = parseTenantsFile("tenants: {TEAM_A: {namespaces: [team-a]}, TEAM_B: {namespaces: [team-b]}, PLATFORM: {admin: true}}", "t.yaml");
const teamA = tenants.get("TEAM_A")!;
const platform = tenants.get("PLATFORM")!;

function record(observationId: string, tenant: string | undefined, deployment: string, startedMs: number, outcome: ObservationRecord["outcome"] = "in_progress"): ObservationRecord {
  return {
    observationId,
    contentHash: "h",
    request: { key: `ci/${observationId}`, deployment, require: "healthy", timeoutSeconds: 600, absentGraceSeconds: 10, stallSeconds: 120, failOn: [], resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api" }] },
    identities: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "team-a", name: "api" }],
    startedAt: at(startedMs),
    deadline: at(startedMs + 600_000),
    outcome,
    ...(tenant !== undefined && { tenant }),
  };
}

const lease = (holder: string, tenant: string | undefined, extra: Partial<Lease> = {}): Lease => ({ holder, incarnation: `${holder}-1`, expiresAt: at(5_000), ...(tenant !== undefined && { tenant }), ...extra });

/** A lease table and a records bucket, each recording what was read. */
function fakes(rows: { lease: Lease; record: ObservationRecord | "corrupt" }[], heartbeats: Heartbeat[]) {
  const reads = { records: [] as string[], heartbeats: [] as string[] };
  const entries: LeaseEntry[] = rows.map((row, i) => ({ observationId: row.record === "corrupt" ? `corrupt-${i}` : row.record.observationId, lease: row.lease, revision: i + 1 }));
  const byId = new Map(rows.map((row, i) => [entries[i]!.observationId, row.record]));
  const table: LeaseTable = {
    leases: () => entries.values(),
    heartbeat: (replica) => {
      reads.heartbeats.push(replica);
      return heartbeats.find((beat) => beat.replica === replica);
    },
  };
  const records = {
    async getRecord(observationId: string): Promise<StoredRecord | undefined> {
      reads.records.push(observationId);
      const found = byId.get(observationId);
      if (found === "corrupt") throw new RecordCorruptError(`record ${observationId} does not parse`);
      return found && { record: found, revision: 1 };
    },
  };
  return { table, records, reads };
}

const beat = (replica: string, expiresMs: number): Heartbeat => ({ replica, incarnation: `${replica}-1`, expiresAt: at(expiresMs) });

describe("listVisible", () => {
  const rows = [
    { lease: lease("r1", "TEAM_A"), record: record("a-1", "TEAM_A", "api", 2_000) },
    { lease: lease("r2", "TEAM_A"), record: record("a-2", "TEAM_A", "web", 1_000) },
    ...Array.from({ length: 45 }, (_, i) => ({ lease: lease("r2", "TEAM_B"), record: record(`b-${i}`, "TEAM_B", "api", 0) })),
    { lease: lease("r1", "TEAM_A"), record: record("a-done", "TEAM_A", "api", 0, "succeeded") },
    { lease: lease("r1", "TEAM_B"), record: "corrupt" as const },
  ];

  it("a tenant's list reads its own records only, however many another tenant has, and no lease or heartbeat from the bucket", async () => {
    const { table, records, reads } = fakes(rows, [beat("r1", 30_000), beat("r2", 40_000)]);
    const listing = await listVisible(table, records, { caller: teamA, nowMs: t0 });
    expect(reads.records.sort()).toEqual(["a-1", "a-2", "a-done"]);
    // Oldest first; the decided one is left out; heartbeats come from the table.
    expect(listing.observations.map(({ record: r, leaseState, heldUntil }) => [r.observationId, leaseState, heldUntil])).toEqual([
      ["a-2", "held", at(40_000)],
      ["a-1", "held", at(30_000)],
    ]);
    expect(listing.unreadable).toEqual([]);
  });

  it("of one deployment: the caller's records of it", async () => {
    const { table, records } = fakes(rows, []);
    const listing = await listVisible(table, records, { caller: teamA, deployment: "web", nowMs: t0 + 10_000 });
    expect(listing.observations.map(({ record: r, leaseState }) => [r.observationId, leaseState])).toEqual([["a-2", "expired"]]);
  });

  it("an admin reads and sees every tenant's, and the records it cannot read", async () => {
    const { table, records, reads } = fakes(rows, []);
    const listing = await listVisible(table, records, { caller: platform, nowMs: t0 });
    expect(reads.records).toHaveLength(rows.length);
    expect(listing.observations).toHaveLength(47);
    expect(listing.unreadable).toEqual([{ observationId: "corrupt-48", problem: "record corrupt-48 does not parse" }]);
  });

  it("a lease naming no tenant (written before leases named theirs) is read for an admin only", async () => {
    const { table, records, reads } = fakes([{ lease: lease("r1", undefined), record: record("old", "TEAM_A", "api", 0) }], []);
    expect((await listVisible(table, records, { caller: teamA, nowMs: t0 })).observations).toEqual([]);
    expect(reads.records).toEqual([]);
    expect((await listVisible(table, records, { caller: platform, nowMs: t0 })).observations.map(({ record: r }) => r.observationId)).toEqual(["old"]);
    // Without a tenants file the sole caller sees everything, as before tenants.
    expect((await listVisible(table, records, { caller: soleCaller, nowMs: t0 })).observations).toHaveLength(1);
  });

  it("a record naming another tenant than its lease is not shown to the lease's tenant", async () => {
    const { table, records } = fakes([{ lease: lease("r1", "TEAM_A"), record: record("mixed", "TEAM_B", "api", 0) }], []);
    expect((await listVisible(table, records, { caller: teamA, nowMs: t0 })).observations).toEqual([]);
  });

  it("a released lease shows its own term, not its holder's heartbeat", async () => {
    const { table, records } = fakes([{ lease: lease("r1", "TEAM_A", { released: true, expiresAt: at(1_000) }), record: record("handed", "TEAM_A", "api", 0) }], [beat("r1", 30_000)]);
    const [listed] = (await listVisible(table, records, { caller: teamA, nowMs: t0 })).observations;
    expect(listed).toMatchObject({ leaseState: "released", heldUntil: at(1_000) });
  });
});

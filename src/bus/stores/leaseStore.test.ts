import type { KV } from "@nats-io/kv";
import { describe, expect, it } from "vitest";
import { leaseState } from "./inProgress.js";
import { heartbeatKey, isHeartbeatKey, leaseStoreIn } from "./leaseStore.js";

const t0 = Date.parse("2026-12-01T10:00:00Z");
const at = (ms: number) => new Date(t0 + ms).toISOString();

describe("heartbeatKey", () => {
  it("is one valid KV key for any replica id, never an observation id's", () => {
    for (const id of ["stagewatch-7d9f-abc12", "host.example.", "a..b", ".x"]) {
      const key = heartbeatKey(id);
      expect(key).toMatch(/^heartbeats\.[-\w]+$/);
      expect(isHeartbeatKey(key)).toBe(true);
    }
    expect(heartbeatKey("a.b")).not.toBe(heartbeatKey("a_b"));
    expect(isHeartbeatKey("3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b")).toBe(false);
  });
});

describe("leaseState with the holder's heartbeat", () => {
  const lease = { holder: "serve-a", incarnation: "i-1", expiresAt: at(15_000) };
  it("is held past the lease's own term while the heartbeat of its incarnation is fresh, and only then", () => {
    const now = t0 + 60_000;
    expect(leaseState(lease, now)).toBe("expired");
    expect(leaseState(lease, now, { replica: "serve-a", incarnation: "i-1", expiresAt: at(70_000) })).toBe("held");
    expect(leaseState(lease, now, { replica: "serve-a", incarnation: "i-2", expiresAt: at(70_000) })).toBe("expired");
    expect(leaseState(lease, now, { replica: "serve-a", incarnation: "i-1", expiresAt: at(60_000) })).toBe("expired");
    expect(leaseState({ ...lease, released: true }, now, { replica: "serve-a", incarnation: "i-1", expiresAt: at(70_000) })).toBe("released");
  });
});

describe("leaseStoreIn(kv).watch", () => {
  /** A bucket whose watch delivers `stored` a turn apart, with the pending counts nats.js gives them, then waits for updates. */
  function bucket(stored: { key: string; value: object }[]) {
    const entries = stored.map(({ key, value }, i) => ({
      key,
      operation: "PUT" as const,
      revision: i + 1,
      delta: stored.length - 1 - i,
      isUpdate: i === stored.length - 1,
      string: () => JSON.stringify(value),
    }));
    const kv = {
      async watch() {
        return {
          async *[Symbol.asyncIterator]() {
            for (const entry of entries) {
              await new Promise((resolve) => setImmediate(resolve));
              yield entry;
            }
            await new Promise(() => {});
          },
          stop() {},
        };
      },
      status: async () => ({ values: stored.length }),
    };
    return leaseStoreIn(kv as unknown as KV);
  }

  it("resolves once every lease and heartbeat stored when it began is delivered: a table built from it is complete", async () => {
    const leases: string[] = [];
    const heartbeats: string[] = [];
    const store = bucket([
      { key: "obs-1", value: { holder: "r1", expiresAt: at(0), tenant: "TEAM_A" } },
      { key: heartbeatKey("r1"), value: { replica: "r1", incarnation: "i-1", expiresAt: at(0) } },
      { key: "obs-2", value: { holder: "r1", expiresAt: at(0), tenant: "TEAM_B" } },
    ]);
    const watch = await store.watch({ lease: (change) => leases.push(`${change.observationId} ${change.entry?.lease.tenant}`), heartbeat: (change) => heartbeats.push(change.replica) });
    expect(leases).toEqual(["obs-1 TEAM_A", "obs-2 TEAM_B"]);
    expect(heartbeats).toEqual(["r1"]);
    watch.stop();
  });

  it("resolves at once on an empty bucket", async () => {
    const watch = await bucket([]).watch({ lease: () => {}, heartbeat: () => {} });
    watch.stop();
  });
});

import { describe, expect, it } from "vitest";
import { leaseState } from "./inProgress.js";
import { heartbeatKey, isHeartbeatKey } from "./leaseStore.js";

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

import { describe, expect, it } from "vitest";
import type { ClusterWarning } from "../kube/warnings.js";
import { WarningIndex, warningBytes } from "./warningIndex.js";

const at = Date.parse("2026-11-29T10:00:00Z");

function warning(uid: string, reason: string, lastSeenMs: number, count = 1, namespace = "payments"): ClusterWarning {
  return {
    involved: { uid, apiVersion: "apps/v1", kind: "ReplicaSet", namespace, name: `rs-${uid}` },
    eventNamespace: namespace,
    reason,
    message: `${reason} message`,
    count,
    lastSeenMs,
  };
}

/** The ReplicaSet `warning(uid, ...)` is about, as its informer holds it. */
function object(uid: string, namespace = "payments") {
  return { kind: "ReplicaSet", metadata: { uid, name: `rs-${uid}`, namespace } };
}

describe("WarningIndex", () => {
  it("keeps the newest warning per object; an older event's update does not replace a newer reason", () => {
    const index = new WarningIndex();
    expect(index.offer(warning("a", "FailedCreate", at, 1), at)).toBe(true);
    expect(index.offer(warning("a", "FailedCreate", at + 10_000, 2), at + 10_000)).toBe(true);
    expect(index.newest(object("a"), at + 10_000)).toMatchObject({ reason: "FailedCreate", count: 2 });
    expect(index.offer(warning("a", "Unhealthy", at + 20_000), at + 20_000)).toBe(true);
    // A relist replays the FailedCreate event last seen before the Unhealthy one.
    expect(index.offer(warning("a", "FailedCreate", at + 10_000, 2), at + 30_000)).toBe(false);
    expect(index.newest(object("a"), at + 30_000)?.reason).toBe("Unhealthy");
  });

  it("lets the later arrival win when times are equal: timestamps have whole seconds", () => {
    const index = new WarningIndex();
    index.offer(warning("a", "FailedMount", at), at);
    index.offer(warning("a", "FailedAttachVolume", at), at);
    expect(index.newest(object("a"), at)?.reason).toBe("FailedAttachVolume");
  });

  it("neither stores nor answers warnings older than maxAgeMs", () => {
    const index = new WarningIndex({ maxAgeMs: 60_000 });
    expect(index.offer(warning("old", "FailedCreate", at - 61_000), at)).toBe(false);
    expect(index.size).toBe(0);
    index.offer(warning("a", "FailedCreate", at), at);
    expect(index.newest(object("a"), at + 60_000)).toBeDefined();
    expect(index.newest(object("a"), at + 60_001)).toBeUndefined();
    expect(index.size).toBe(0);
  });

  it("forgets the object written to least recently past maxObjects", () => {
    const index = new WarningIndex({ maxObjects: 2 });
    index.offer(warning("a", "FailedCreate", at), at);
    index.offer(warning("b", "FailedCreate", at), at);
    index.offer(warning("a", "FailedCreate", at + 1000, 2), at + 1000);
    index.offer(warning("c", "FailedCreate", at + 2000), at + 2000);
    expect(index.size).toBe(2);
    expect(index.newest(object("b"), at + 2000)).toBeUndefined();
    expect(index.newest(object("a"), at + 2000)?.count).toBe(2);
    expect(index.newest(object("c"), at + 2000)).toBeDefined();
  });

  it("forgets the least recently written past maxBytes, and its byte count follows replacements and forgetting", () => {
    const big = (uid: string) => ({ ...warning(uid, "FailedCreate", at), message: "x".repeat(4096) });
    const index = new WarningIndex({ maxBytes: 3 * warningBytes(big("a")) });
    for (const uid of ["a", "b", "c"]) index.offer(big(uid), at);
    expect(index.size).toBe(3);
    index.offer(big("b"), at);
    expect(index.bytes).toBe(3 * warningBytes(big("a")));
    index.offer(big("d"), at);
    expect(index.size).toBe(3);
    expect(index.newest(object("a"), at)).toBeUndefined();
    expect(index.newest(object("b"), at)).toBeDefined();
    expect(index.bytes).toBeLessThanOrEqual(3 * warningBytes(big("a")));
  });

  it("answers only the warnings naming the object's whole identity: a UID copied into another namespace's event is another object's", () => {
    const index = new WarningIndex();
    index.offer(warning("victim", "FailedCreate", at), at);
    // Written in team-b (as the API server requires, its involvedObject names team-b), naming the victim's UID.
    const forged = { ...warning("victim", "ImagePullBackOff", at + 1000, 1, "team-b") };
    expect(index.offer(forged, at + 1000)).toBe(true);
    expect(index.newest(object("victim"), at + 1000)?.reason).toBe("FailedCreate");
    expect(index.newest({ ...object("victim"), kind: "Pod" }, at + 1000)).toBeUndefined();
    expect(index.newest({ kind: "ReplicaSet", metadata: { uid: "victim", name: "rs-other", namespace: "payments" } }, at + 1000)).toBeUndefined();
  });

  it("forgets past maxObjectsPerNamespace only the warnings written in the namespace that floods", () => {
    const index = new WarningIndex({ maxObjects: 100, maxObjectsPerNamespace: 3 });
    index.offer(warning("a1", "FailedCreate", at, 1, "team-a"), at);
    for (let i = 0; i < 50; i++) index.offer(warning(`b${i}`, "FailedCreate", at + i, 1, "team-b"), at + i);
    expect(index.size).toBe(4);
    expect(index.newest(object("a1", "team-a"), at + 50)?.reason).toBe("FailedCreate");
    expect(index.newest(object("b0", "team-b"), at + 50)).toBeUndefined();
    expect(index.newest(object("b49", "team-b"), at + 50)).toBeDefined();
  });
});

import { describe, expect, it } from "vitest";
import type { ClusterWarning } from "../../kube/warnings.js";
import { pending, settled, shownMessage } from "./reading.js";
import { newestWarning, withWarning } from "./warnings.js";

const at = Date.parse("2026-11-29T10:00:41Z");
const quota = 'Error creating: pods "api-7f9c6d8b5-x2k8p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1';

function failedCreate(overrides: Partial<ClusterWarning> = {}): ClusterWarning {
  return {
    involved: { uid: "rs-uid", apiVersion: "apps/v1", kind: "ReplicaSet", namespace: "payments", name: "api-7f9c6d8b5" },
    eventNamespace: "payments",
    reason: "FailedCreate",
    message: quota,
    count: 4,
    lastSeenMs: at,
    ...overrides,
  };
}

const rollingOut = pending("ReplicaSetUpdated", "0/3 replicas ready, 0 updated");
const noFailOn: ReadonlySet<string> = new Set(["ImagePullBackOff", "InvalidImageName"]);

describe("withWarning", () => {
  it("shows the newest warning after a pending reading, with its count, and keeps the reading's reason", () => {
    const reading = withWarning(rollingOut, failedCreate(), noFailOn);
    expect(reading).toMatchObject({ state: "pending", reason: "ReplicaSetUpdated", message: "0/3 replicas ready, 0 updated" });
    expect(reading.warning).toEqual({ kind: "ReplicaSet", name: "api-7f9c6d8b5", reason: "FailedCreate", message: quota, count: 4, lastSeen: "2026-11-29T10:00:41.000Z" });
    expect(shownMessage(reading)).toBe(`0/3 replicas ready, 0 updated; ReplicaSet api-7f9c6d8b5: FailedCreate (x4): ${quota}`);
  });

  it("leaves out the count of a warning seen once", () => {
    const reading = withWarning(rollingOut, failedCreate({ count: 1 }), noFailOn);
    expect(shownMessage(reading)).toBe(`0/3 replicas ready, 0 updated; ReplicaSet api-7f9c6d8b5: FailedCreate: ${quota}`);
  });

  it("never touches a settled or failed reading", () => {
    const done = settled("3/3 replicas ready");
    expect(withWarning(done, failedCreate(), noFailOn)).toBe(done);
  });

  it("fails the reading with the event's reason only when failOn names it", () => {
    const reading = withWarning(rollingOut, failedCreate(), new Set(["FailedCreate"]));
    expect(reading.state).toBe("failed");
    expect(reading.reason).toBe("FailedCreate");
    expect(shownMessage(reading)).toContain("exceeded quota: compute");
  });

  it("scrubs credentials, folds lines and bounds the length of the event's message", () => {
    const webhook = failedCreate({
      message: 'admission webhook "policy.example.com" denied the request:\nAuthorization: Bearer eyJhbGciOi.secret-token ' + "x".repeat(2000),
    });
    const shown = withWarning(rollingOut, webhook, noFailOn).warning!;
    expect(shown.message).not.toContain("secret-token");
    expect(shown.message).not.toContain("\n");
    expect(shown.message).toContain("[redacted]");
    expect(shown.message.length).toBeLessThanOrEqual(512);
  });
});

describe("newestWarning", () => {
  it("picks the warning last seen most recently, ignoring those from before `since`", () => {
    const old = failedCreate({ reason: "FailedCreate", lastSeenMs: at - 3_600_000 });
    const mount = failedCreate({ reason: "FailedMount", lastSeenMs: at - 5_000 });
    const probe = failedCreate({ reason: "Unhealthy", lastSeenMs: at });
    expect(newestWarning([undefined, mount, probe, old], at - 60_000)?.reason).toBe("Unhealthy");
    expect(newestWarning([old], at - 60_000)).toBeUndefined();
    expect(newestWarning([], at)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { decodeWarningEvent, maxWarningMessageChars, maxWarningReasonChars } from "./warnings.js";
import { legacyWarning, seriesWarning } from "../../test/fixtures/kube/events.js";
import { pod } from "../../test/fixtures/kube/pods.js";
import { deployment, replicaSet } from "../../test/fixtures/kube/workloads.js";

const api = deployment();
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 3 });
const quota =
  'Error creating: pods "api-7f9c6d8b5-x2k8p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1';

describe("decodeWarningEvent", () => {
  it("reads what the legacy recorder writes: count and lastTimestamp", () => {
    const line = decodeWarningEvent(
      legacyWarning(current, { reason: "FailedCreate", message: quota, count: 4, firstTimestamp: "2026-11-29T10:00:03Z", lastTimestamp: "2026-11-29T10:00:41Z" }),
    );
    expect(line).toEqual({
      metadata: { resourceVersion: "51230" },
      warning: {
        involved: { uid: current.metadata.uid, apiVersion: "apps/v1", kind: "ReplicaSet", namespace: "payments", name: "api-7f9c6d8b5" },
        eventNamespace: "payments",
        reason: "FailedCreate",
        message: quota,
        count: 4,
        lastSeenMs: Date.parse("2026-11-29T10:00:41Z"),
      },
    });
  });

  it("reads an events.k8s.io event through core/v1: series count and last observed time, count 0 and null timestamps ignored", () => {
    const pending = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current });
    const message = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    const first = decodeWarningEvent(seriesWarning(pending, { reason: "FailedScheduling", message, eventTime: "2026-11-29T10:00:02.418263Z" }));
    expect(first?.warning).toMatchObject({ reason: "FailedScheduling", count: 1, lastSeenMs: Date.parse("2026-11-29T10:00:02.418Z") });
    const repeated = decodeWarningEvent(
      seriesWarning(pending, {
        reason: "FailedScheduling",
        message,
        eventTime: "2026-11-29T10:00:02.418263Z",
        series: { count: 3, lastObservedTime: "2026-11-29T10:05:02.511042Z" },
      }),
    );
    expect(repeated?.warning).toMatchObject({ count: 3, lastSeenMs: Date.parse("2026-11-29T10:05:02.511Z") });
  });

  it("keeps the resourceVersion of an event nothing could route or date, without a warning", () => {
    const event = legacyWarning(current, { reason: "FailedCreate", message: quota, lastTimestamp: "2026-11-29T10:00:41Z" }) as unknown as Record<string, unknown>;
    expect(decodeWarningEvent({ ...event, involvedObject: { kind: "Node", name: "kwok-node-0" } })).toEqual({ metadata: { resourceVersion: "51230" }, warning: undefined });
    expect(decodeWarningEvent({ ...event, reason: "" })?.warning).toBeUndefined();
    expect(decodeWarningEvent({ ...event, lastTimestamp: null, firstTimestamp: null, metadata: { resourceVersion: "9" } })).toEqual({
      metadata: { resourceVersion: "9" },
      warning: undefined,
    });
  });

  it("carries no warning from an Event whose own namespace is not its object's, as the API server would have refused", () => {
    const event = legacyWarning(current, { reason: "FailedCreate", message: quota, lastTimestamp: "2026-11-29T10:00:41Z" });
    const elsewhere = { ...event, metadata: { ...event.metadata, namespace: "team-b" } };
    expect(decodeWarningEvent(elsewhere)).toEqual({ metadata: { resourceVersion: "51230" }, warning: undefined });
  });

  it("takes a cluster-scoped object's events from default and kube-system only, where the recorders write them", () => {
    const node = { apiVersion: "v1", kind: "Node", metadata: { name: "kwok-node-0", uid: "5d0c6a51-7d6c-4c59-9b59-1c1f43b1a0de" } };
    const about = (eventNamespace: string) => {
      const event = legacyWarning(node, { reason: "NodeNotReady", message: "Node is not ready", lastTimestamp: "2026-11-29T10:00:41Z", component: "node-controller" });
      return decodeWarningEvent({ ...event, metadata: { ...event.metadata, namespace: eventNamespace } })?.warning;
    };
    expect(about("default")).toMatchObject({ eventNamespace: "default", involved: { kind: "Node", name: "kwok-node-0" } });
    expect(about("kube-system")).toBeDefined();
    expect(about("team-b")).toBeUndefined();
  });

  it("refuses what is not an object with metadata", () => {
    expect(decodeWarningEvent(null)).toBeUndefined();
    expect(decodeWarningEvent({ kind: "Event" })).toBeUndefined();
  });

  it("keeps at most maxWarningMessageChars of a message and maxWarningReasonChars of a reason, never half a surrogate pair", () => {
    const huge = `${"a".repeat(maxWarningMessageChars - 1)}😀${"b".repeat(900 * 1024)}`;
    const line = decodeWarningEvent(legacyWarning(current, { reason: "R".repeat(1000), message: huge, lastTimestamp: "2026-11-29T10:00:41Z" }));
    expect(line?.warning?.message).toBe("a".repeat(maxWarningMessageChars - 1));
    expect(line?.warning?.reason).toHaveLength(maxWarningReasonChars);
  });
});

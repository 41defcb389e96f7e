import { describe, expect, it } from "vitest";
import { blindStretches, deploymentReceipts, endedEarly, receiptInWindow, summarizeWatches, type RecordedWatch, type WatchRecording } from "../../bench/cluster/watchTimeline.ts";

// As watches-on-signal.ts writes them: CLOCK_MONOTONIC microseconds. The Deployment watch of the
// whole cluster is ended by the server at 2.0 s and answered again at 2.3 s; the pod watch of one
// namespace fails at 3.0 s and its next one is answered at 3.05 s; a pod watch of another
// namespace never ends.
const deployments = "/apis/apps/v1/deployments";
const podsA = "/api/v1/namespaces/a/pods";
const recording: WatchRecording = {
  watches: [
    { path: deployments, resourceVersion: "100", sentUs: 1_000_000, answeredUs: 1_010_000, status: 200, endedUs: 2_000_000 },
    { path: podsA, resourceVersion: "100", sentUs: 1_000_000, answeredUs: 1_020_000, status: 200, endedUs: 3_000_000, error: "SocketError" },
    { path: "/api/v1/namespaces/b/pods", resourceVersion: "100", sentUs: 1_000_000, answeredUs: 1_030_000, status: 200 },
    // Recorded out of order: the timeline sorts each collection's watches by when they were sent.
    { path: podsA, resourceVersion: "180", sentUs: 3_001_000, answeredUs: 3_050_000, status: 200 },
    { path: deployments, resourceVersion: "150", sentUs: 2_000_500, headersSentUs: 2_120_500, answeredUs: 2_300_000, status: 200 },
  ],
  deploymentArrivals: [
    ["140", 1_900_000],
    ["160", 2_300_100],
    // Replayed by the next watch: the first receipt counts.
    ["140", 2_300_050],
  ],
};

describe("the service's watches laid over the phase", () => {
  it("finds each collection's blind stretch, from a watch's end to the next one's answer", () => {
    expect(blindStretches(recording.watches)).toEqual([
      { path: deployments, fromUs: 2_000_000, toUs: 2_300_000, connectUs: 120_000 },
      { path: podsA, fromUs: 3_000_000, toUs: 3_050_000 },
    ]);
  });

  it("sums the phase by resource, counting only what happened inside it", () => {
    expect(summarizeWatches(recording, 1_500_000, 4_000_000)).toEqual({
      deployments: { opened: 1, endedByServer: 1, endedEarly: 0, failed: 0, blindMs: { p50: 300, max: 300 }, connectMs: { p50: 120, max: 120 } },
      pods: { opened: 1, endedByServer: 0, endedEarly: 0, failed: 1, blindMs: { p50: 50, max: 50 }, connectMs: { p50: null, max: null } },
    });
  });

  it("cuts a slow verdict's window at the service's receipt of its decisive event, with the Deployment watch's blind time inside it", () => {
    const receipts = deploymentReceipts(recording);
    expect(receipts.get("140")).toBe(1_900_000);
    // The benchmark saw resourceVersion 160 at 2.1 s, during the Deployment watch's re-opening;
    // the service got it from the next watch 200.1 ms later.
    expect(receiptInWindow(receipts, blindStretches(recording.watches), "160", 2_100_000, 2_400_000)).toEqual({
      serviceReceiptMs: 200.1,
      deploymentWatchBlindMs: 200,
    });
    // A pod watch's blind stretch is not the Deployment's; an unknown resourceVersion has no receipt.
    expect(receiptInWindow(receipts, blindStretches(recording.watches), "999", 2_900_000, 3_100_000)).toEqual({ deploymentWatchBlindMs: 0 });
  });
});

// The service's pod watch of every namespace, as recorded at full size: asked to end after 437 s.
const podWatch = (lifetimeSeconds: number, more: Partial<RecordedWatch> = {}): RecordedWatch => ({
  path: "/api/v1/pods",
  resourceVersion: "48213",
  timeoutSeconds: 437,
  sentUs: 10_000_000,
  answeredUs: 10_004_000,
  status: 200,
  endedUs: 10_000_000 + lifetimeSeconds * 1_000_000,
  ...more,
});

describe("watches the server ended before their timeout", () => {
  it("tells a watch ended at its timeoutSeconds from one the cacher closed early", () => {
    expect(endedEarly(podWatch(437.02))).toBe(false);
    // Within the margin: the server's timer starts after the request was sent, rounding aside.
    expect(endedEarly(podWatch(436.5))).toBe(false);
    expect(endedEarly(podWatch(5.8))).toBe(true);
  });

  it("counts no error, refusal, open watch or watch without a timeout as ended early", () => {
    expect(endedEarly(podWatch(5.8, { error: "SocketError" }))).toBe(false);
    expect(endedEarly(podWatch(0.01, { status: 429 }))).toBe(false);
    const { endedUs: _open, ...open } = podWatch(5.8);
    expect(endedEarly(open)).toBe(false);
    const { timeoutSeconds: _none, ...noTimeout } = podWatch(5.8);
    expect(endedEarly(noTimeout)).toBe(false);
  });

  it("sums the early ends of the phase by resource, with the reader's loop delay before each", () => {
    const watches = [
      podWatch(5.8, { loopDelayMaxMs: 41.3, protocol: "h2" }),
      podWatch(12.1, { sentUs: 16_000_000, endedUs: 28_100_000, loopDelayMaxMs: 212.6 }),
      podWatch(437.01, { sentUs: 30_000_000, endedUs: 467_010_000, loopDelayMaxMs: 12 }),
    ];
    expect(summarizeWatches({ watches }, 0, 500_000_000)["pods"]).toMatchObject({
      opened: 3,
      endedByServer: 3,
      endedEarly: 2,
      failed: 0,
      loopDelayBeforeEarlyEndMs: { p50: 41.3, max: 212.6 },
      protocols: ["h2"],
    });
  });
});

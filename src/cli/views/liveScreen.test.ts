import { describe, expect, test } from "vitest";
import type { ObservationVerdict, ResourceVerdict } from "../../verdicts/index.js";
import { applyEvent, applyVerdict, lineText, renderScreen, startLiveState, type LiveState } from "./liveScreen.js";

const t0 = Date.parse("2026-12-01T10:00:00Z");
const at = (s: number) => t0 + s * 1000;
const big = { columns: 200, rows: 40 };

const api: ResourceVerdict = {
  identity: { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" },
  state: "pending",
  reason: "AwaitingStatus",
  message: "1/2 replicas ready, 2 updated",
};
const migrate: ResourceVerdict = {
  identity: { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true },
  state: "settled",
};

function state(): LiveState {
  const s = startLiveState({ deployment: "payments", observationId: "obs-1", required: "healthy", startedAtMs: t0, deadlineMs: at(300) });
  applyVerdict(s, verdict({ outcome: "in_progress", reached: "none", resources: [migrate, { ...api, message: undefined, reason: undefined }] }));
  return s;
}

function verdict(overrides: Partial<ObservationVerdict>): ObservationVerdict {
  return {
    observationId: "obs-1",
    key: "ci-1/payments",
    deployment: "payments",
    required: "healthy",
    reached: "none",
    outcome: "in_progress",
    resources: [],
    message: "",
    startedAt: new Date(t0).toISOString(),
    deadline: new Date(at(300)).toISOString(),
    ...overrides,
  };
}

const text = (s: LiveState, now: number, size = big) => renderScreen(s, now, size).map(lineText);

describe("renderScreen", () => {
  test("in progress: header with elapsed and budget left, the stages, one line per resource in request order", () => {
    const s = state();
    applyEvent(s, { type: "stage", observationId: "obs-1", deployment: "payments", at: "", stage: "applied" });
    applyEvent(s, { type: "stage", observationId: "obs-1", deployment: "payments", at: "", stage: "bootstrapped" });
    applyEvent(s, { type: "progress", observationId: "obs-1", deployment: "payments", at: "", resource: api });
    expect(text(s, at(72))).toEqual([
      "deployment payments: reached bootstrapped of healthy   1m12s elapsed, 3m48s left",
      "stages  applied ✓  bootstrapped ✓  healthy … ",
      "settled Job payments/schema-migrate",
      "pending Deployment payments/api      AwaitingStatus: 1/2 replicas ready, 2 updated",
    ]);
  });

  test("the budget left never goes below zero; only stages up to the required one are shown", () => {
    const s = startLiveState({ deployment: "web", observationId: "o", required: "applied", startedAtMs: t0, deadlineMs: at(5) });
    expect(text(s, at(9))).toEqual(["deployment web: reached none of applied   9s elapsed, 0s left", "stages  applied … "]);
  });

  test("decided: the outcome, what was reached and how long it took; the failed stage marked", () => {
    const s = state();
    const failed: ResourceVerdict = { ...api, state: "failed", reason: "ImagePullBackOff", message: "pod api-7f container api: ImagePullBackOff" };
    applyEvent(s, {
      type: "verdict",
      observationId: "obs-1",
      deployment: "payments",
      at: "",
      verdict: verdict({ outcome: "failed", reached: "bootstrapped", resources: [migrate, failed], decidedAt: new Date(at(14)).toISOString() }),
    });
    expect(text(s, at(20))).toEqual([
      "deployment payments failed: reached bootstrapped of healthy in 14s",
      "stages  applied ✓  bootstrapped ✓  healthy ✗ ",
      "settled Job payments/schema-migrate",
      "failed  Deployment payments/api      ImagePullBackOff: pod api-7f container api: ImagePullBackOff",
    ]);
  });

  test("no line is wider than the terminal and multi-line messages stay on one line", () => {
    const s = state();
    applyEvent(s, { type: "progress", observationId: "obs-1", deployment: "payments", at: "", resource: { ...api, message: "line one\nline two ".repeat(20) } });
    const lines = text(s, at(1), { columns: 50, rows: 24 });
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(49);
    expect(lines[3]).toMatch(/^pending Deployment payments\/api +AwaitingSta…$/);
    expect(lines.join("")).not.toContain("\n");
  });

  test("taller than the terminal: settled resources fold into one line, then the rest is cut with a count", () => {
    const s = startLiveState({ deployment: "big", observationId: "o", required: "healthy", startedAtMs: t0, deadlineMs: at(60) });
    const cm = (i: number, state: ResourceVerdict["state"]): ResourceVerdict => ({ identity: { apiVersion: "v1", kind: "ConfigMap", namespace: "a", name: `c${i}` }, state });
    applyVerdict(s, verdict({ resources: [...Array.from({ length: 30 }, (_, i) => cm(i, "settled")), cm(30, "pending"), cm(31, "pending")] }));
    expect(text(s, at(1), { columns: 80, rows: 10 }).slice(2)).toEqual(["settled 30 resources", "pending ConfigMap a/c30", "pending ConfigMap a/c31"]);
    applyVerdict(s, verdict({ resources: Array.from({ length: 32 }, (_, i) => cm(i, "pending")) }));
    const cut = text(s, at(1), { columns: 80, rows: 10 });
    expect(cut).toHaveLength(9);
    expect(cut.at(-1)).toBe("... and 26 more");
  });
});

test("--require verified: the window counts down from the healthy stage event's time, and goes with the verdict", () => {
  const s = startLiveState({ deployment: "payments", observationId: "obs-1", required: "verified", startedAtMs: t0, deadlineMs: at(600), verifyWindowMs: 300_000 });
  applyEvent(s, { type: "stage", observationId: "obs-1", deployment: "payments", at: new Date(at(40)).toISOString(), stage: "healthy" });
  const screen = (nowMs: number) => renderScreen(s, nowMs, big).map(lineText);
  expect(screen(at(100))).toContain("verify 4m0s left of the 5m0s window after healthy   no restart, readiness flap, OOMKilled, eviction or failOn Warning so far");
  expect(screen(at(100))[1]).toBe("stages  applied ✓  bootstrapped ✓  healthy ✓  verified … ");
  applyVerdict(s, verdict({ required: "verified", outcome: "succeeded", reached: "verified", decidedAt: new Date(at(340)).toISOString() }));
  expect(screen(at(341)).join("\n")).not.toContain("left of the");
});

test("--require verified with analyses: each check's measurements and last value under the countdown, from the measurement's event", () => {
  const s = startLiveState({ deployment: "payments", observationId: "obs-1", required: "verified", startedAtMs: t0, deadlineMs: at(600), verifyWindowMs: 300_000 });
  applyEvent(s, { type: "stage", observationId: "obs-1", deployment: "payments", at: new Date(at(40)).toISOString(), stage: "healthy" });
  applyEvent(s, {
    type: "progress",
    observationId: "obs-1",
    deployment: "payments",
    at: new Date(at(70)).toISOString(),
    resource: { ...api, state: "settled", reason: undefined, message: "2/2 replicas ready, 2 updated" },
    verification: {
      windowSeconds: 300,
      startedAt: new Date(at(40)).toISOString(),
      endsAt: new Date(at(340)).toISOString(),
      pods: ["api-7f9c6d8b5-q7w4d", "api-7f9c6d8b5-x2k8p"],
      analyses: [
        { name: "error-rate", status: "running", taken: 2, count: 5, failed: 0, inconclusive: 0, last: 0.003 },
        { name: "latency-p99", status: "running", taken: 1, count: 10, failed: 1, inconclusive: 1 },
      ],
    },
  });
  const lines = renderScreen(s, at(100), big).map(lineText);
  expect(lines).toContain("verify 4m0s left of the 5m0s window after healthy   no restart, readiness flap, OOMKilled, eviction or failOn Warning so far");
  expect(lines).toContain("check analysis error-rate: 2 of 5 measurements, 0 failed, last 0.003");
  expect(lines).toContain("check analysis latency-p99: 1 of 10 measurements, 1 failed, 1 inconclusive");
});

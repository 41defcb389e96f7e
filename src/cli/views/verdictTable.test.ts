import { describe, expect, test } from "vitest";
import type { ObservationVerdict } from "../../verdicts/index.js";
import { formatTable, verdictTable } from "./verdictTable.js";

const t0 = Date.parse("2026-12-01T10:00:00Z");

const verdict: ObservationVerdict = {
  observationId: "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b",
  key: "ci-4812/payments",
  deployment: "payments",
  required: "healthy",
  reached: "bootstrapped",
  outcome: "in_progress",
  resources: [
    { identity: { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true }, state: "settled", message: "1/1 completions" },
    {
      identity: { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" },
      state: "pending",
      reason: "ContainersNotReady",
      message: "1/2 replicas ready, 2 updated\npod api-7f9c-x2 container api: not ready",
    },
  ],
  message: "deployment payments waiting for healthy: reached bootstrapped, 1/2 resources settled",
  startedAt: new Date(t0).toISOString(),
  deadline: new Date(t0 + 300_000).toISOString(),
  history: { earlier: 23, stages: { healthy: { samples: 23, medianSeconds: 72, p90Seconds: 125, p95Seconds: 140, earlierSeconds: [] } } },
};

describe("formatTable", () => {
  test("columns padded to the widest cell, three spaces apart, the last one not padded", () => {
    expect(formatTable(["NAME", "STATE"], [["a", "pending"], ["longer-name", "settled"]])).toBe(
      "NAME          STATE\na             pending\nlonger-name   settled\n",
    );
  });
});

describe("verdictTable", () => {
  test("in progress: age, what the history expects and budget left, one row per resource, multi-line messages on one line", () => {
    expect(verdictTable(verdict, t0 + 72_000)).toBe(
      [
        "OBSERVATION                            DEPLOYMENT   KEY                REQUIRED   REACHED        OUTCOME       AGE     USUALLY                  LEFT    DECIDED",
        "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b   payments     ci-4812/payments   healthy    bootstrapped   in_progress   1m12s   1m12s (90% 2m5s, n=23)   3m48s   -",
        "",
        "RESOURCE                      STATE     REASON               MESSAGE",
        "Job payments/schema-migrate   settled   -                    1/1 completions",
        "Deployment payments/api       pending   ContainersNotReady   1/2 replicas ready, 2 updated; pod api-7f9c-x2 container api: not ready",
        "",
        "deployment payments waiting for healthy: reached bootstrapped, 1/2 resources settled",
        "history: to healthy, usually 1m12s, 90% within 2m5s, from 23 earlier rollouts",
        "",
      ].join("\n"),
    );
  });

  test("decided: no time left, how long ago it was decided", () => {
    const cancelled: ObservationVerdict = { ...verdict, outcome: "cancelled", decidedAt: new Date(t0 + 30_000).toISOString(), message: "cancelled" };
    const [, row] = verdictTable(cancelled, t0 + 90_000).split("\n");
    expect(row).toMatch(/ {3}cancelled {3}1m30s {3}1m12s \(90% 2m5s, n=23\) {3}- {6}1m0s ago$/);
  });
});

import { describe, expect, test } from "vitest";
import { leaseState, type InProgressObservation, type ObservationRecord } from "../../bus/index.js";
import { inProgressItem } from "../../bus/stores/inProgress.js";
import { inProgressTable } from "./inProgressTable.js";

const t0 = Date.parse("2026-12-01T10:00:00Z");
const at = (ms: number) => new Date(t0 + ms).toISOString();

function observation(id: string, overrides: { deployment: string; key: string; startedMs: number; budgetMs: number; reached?: "none" | "applied" | "bootstrapped" }, lease: InProgressObservation["lease"]): InProgressObservation {
  const request = { key: overrides.key, deployment: overrides.deployment, require: "healthy", timeoutSeconds: overrides.budgetMs / 1000, absentGraceSeconds: 10, stallSeconds: 120, failOn: ["ImagePullBackOff"], resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api" }] } as const;
  const record: ObservationRecord = {
    observationId: id,
    contentHash: "h",
    request: { ...request, failOn: [...request.failOn], resources: [...request.resources] },
    identities: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: overrides.deployment, name: "api" }],
    startedAt: at(overrides.startedMs),
    deadline: at(overrides.startedMs + overrides.budgetMs),
    outcome: "in_progress",
    ...(overrides.reached !== undefined && {
      verdict: {
        observationId: id,
        key: overrides.key,
        deployment: overrides.deployment,
        required: "healthy",
        reached: overrides.reached,
        outcome: "in_progress",
        resources: [],
        message: "waiting",
        startedAt: at(overrides.startedMs),
        deadline: at(overrides.startedMs + overrides.budgetMs),
      },
    }),
  };
  return { record, lease, leaseState: leaseState(lease, t0 + 72_000) };
}

const observations = [
  observation("3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b", { deployment: "payments", key: "ci-4812/payments", startedMs: 0, budgetMs: 300_000, reached: "bootstrapped" }, { holder: "stagewatch-7d9f-abc12", expiresAt: at(80_000) }),
  observation("0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", { deployment: "search", key: "ci-4813/search", startedMs: 60_000, budgetMs: 600_000 }, { holder: "stagewatch-7d9f-xyz98", expiresAt: at(65_000) }),
  observation("9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9", { deployment: "billing", key: "ci-4814/billing", startedMs: 70_000, budgetMs: 1_000 }, { holder: "stagewatch-7d9f-xyz98", expiresAt: at(90_000), released: true }),
];

describe("leaseState", () => {
  test("held until expiresAt, expired from then; released whatever expiresAt says", () => {
    expect(leaseState({ holder: "a", expiresAt: at(1_000) }, t0 + 999)).toBe("held");
    expect(leaseState({ holder: "a", expiresAt: at(1_000) }, t0 + 1_000)).toBe("expired");
    expect(leaseState({ holder: "a", expiresAt: at(1_000), released: true }, t0)).toBe("released");
  });
});

describe("inProgressTable", () => {
  test("one row each: age, budget left (0s once the deadline passed), the owner marked when its lease is expired or released", () => {
    expect(inProgressTable(observations.map(inProgressItem), t0 + 72_000)).toBe(
      [
        "OBSERVATION                            DEPLOYMENT   KEY                REQUIRED   REACHED        AGE     USUALLY   LEFT    OWNER",
        "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b   payments     ci-4812/payments   healthy    bootstrapped   1m12s   -         3m48s   stagewatch-7d9f-abc12",
        "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0   search       ci-4813/search     healthy    none           12s     -         9m48s   stagewatch-7d9f-xyz98 (expired)",
        "9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9   billing      ci-4814/billing    healthy    none           2s      -         0s      stagewatch-7d9f-xyz98 (released)",
        "",
      ].join("\n"),
    );
  });

  test("the JSON item carries the same facts, with the lease's state and expiry", () => {
    expect(inProgressItem(observations[1]!)).toEqual({
      observationId: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
      deployment: "search",
      key: "ci-4813/search",
      required: "healthy",
      reached: "none",
      startedAt: "2026-12-01T10:01:00.000Z",
      deadline: "2026-12-01T10:11:00.000Z",
      owner: { replica: "stagewatch-7d9f-xyz98", lease: "expired", leaseExpiresAt: "2026-12-01T10:01:05.000Z" },
    });
  });
});

import { expect, it } from "vitest";
import { ObservationRequest } from "../verdicts/schemas.js";
import { budgetEnd } from "./client.js";

const request = (budget: { timeoutSeconds?: number; deadline?: string }) =>
  ObservationRequest.parse({
    key: "ci-4812/payments",
    deployment: "payments",
    require: "healthy",
    resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" }],
    ...budget,
  });

const now = Date.parse("2026-11-29T10:00:00Z");

it.each([
  ["a timeout", { timeoutSeconds: 300 }, "2026-11-29T10:05:00.000Z"],
  ["a deadline", { deadline: "2026-11-29T10:02:00Z" }, "2026-11-29T10:02:00.000Z"],
  ["both, the deadline earlier", { timeoutSeconds: 300, deadline: "2026-11-29T10:02:00+00:00" }, "2026-11-29T10:02:00.000Z"],
  ["both, the timeout earlier", { timeoutSeconds: 60, deadline: "2026-11-29T13:00:00+02:00" }, "2026-11-29T10:01:00.000Z"],
])("the budget of %s ends at the earlier end", (_, budget, end) => {
  expect(new Date(budgetEnd(request(budget), now)).toISOString()).toBe(end);
});

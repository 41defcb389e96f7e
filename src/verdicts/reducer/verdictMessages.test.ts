import { describe, expect, it } from "vitest";
import type { ResourceStage } from "../contract/schemas.js";
import { successMessage, type StageCounts } from "./verdictMessages.js";

const cases: { name: string; stage: ResourceStage; counts: StageCounts; expected: string }[] = [
  { name: "applied, one resource", stage: "applied", counts: { total: 1, applied: 1, bootstrapJobs: 0, settled: 0 }, expected: "deployment reports reached applied: 1 resource exists" },
  { name: "applied, several resources", stage: "applied", counts: { total: 3, applied: 3, bootstrapJobs: 1, settled: 0 }, expected: "deployment reports reached applied: 3 resources exist" },
  { name: "bootstrapped without bootstrap Jobs names none", stage: "bootstrapped", counts: { total: 1, applied: 1, bootstrapJobs: 0, settled: 0 }, expected: "deployment reports reached bootstrapped: 1 resource exists" },
  { name: "bootstrapped with a bootstrap Job", stage: "bootstrapped", counts: { total: 3, applied: 3, bootstrapJobs: 1, settled: 1 }, expected: "deployment reports reached bootstrapped: 3 resources exist, 1 bootstrap Job complete" },
  { name: "healthy", stage: "healthy", counts: { total: 1, applied: 1, bootstrapJobs: 0, settled: 1 }, expected: "deployment reports reached healthy: 1 resource settled" },
];

describe("successMessage", () => {
  it.each(cases)("$name", ({ stage, counts, expected }) => {
    expect(successMessage("reports", stage, counts)).toBe(expected);
  });
});

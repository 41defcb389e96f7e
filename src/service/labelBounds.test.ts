import { describe, expect, it } from "vitest";
import { boundedLabel, otherLabelValue, tenantBoundedLabel } from "./labelBounds.js";
import { busMetricsOf, createMetrics, engineMetricsOf, expectationSeriesLimit } from "./metrics.js";

/** The label sets of one metric's series in a text scrape, each as an object. */
function seriesOf(text: string, metric: string): Record<string, string>[] {
  return [...text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} (\\S+)$`, "gm"))].map((m) => ({
    ...Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!])),
    value: m[2]!,
  }));
}

describe("bounded labels", () => {
  it("keep the first max values, count later ones as (other), and cut long ones", () => {
    const label = boundedLabel(2);
    expect(["a", "b", "c", "a", "d"].map(label)).toEqual(["a", "b", otherLabelValue, "a", otherLabelValue]);
    expect(boundedLabel(5)("x".repeat(100))).toHaveLength(64);
  });

  it("give each tenant a budget of its own: one tenant's many names leave another's as they are", () => {
    const label = tenantBoundedLabel(2);
    expect(["a", "b", "c"].map((name) => label("TEAM_B", name))).toEqual(["a", "b", otherLabelValue]);
    expect(["c", "d", "e", "c"].map((name) => label("TEAM_A", name))).toEqual(["c", "d", otherLabelValue, "c"]);
    expect(label(undefined, "z")).toBe("z");
  });

  it("bound stage_reached_seconds' deployments and failures_total's reasons in the registry", async () => {
    const metrics = createMetrics(undefined, { maxDeploymentLabels: 3 });
    const engine = engineMetricsOf(metrics);
    for (let i = 0; i < 10; i++) engine.stageReached("applied", `app-${i}`, undefined, 1);
    for (let i = 0; i < 500; i++) engine.resourceFailed("example.com/Widget", `Reason${i}`, undefined);
    const text = await metrics.registry.metrics();
    const deployments = new Set([...text.matchAll(/stage_reached_seconds_count\{stage="applied",deployment="([^"]+)"\}/g)].map((m) => m[1]));
    expect(deployments).toEqual(new Set(["app-0", "app-1", "app-2", "(other)"]));
    expect(text).toContain('stage_reached_seconds_count{stage="applied",deployment="(other)"} 7');
    expect([...text.matchAll(/stagewatch_failures_total\{/g)]).toHaveLength(201);
    // Without a tenants file no series carries the label.
    expect(text).not.toContain("tenant=");
  });
});

describe("with tenants", () => {
  it("a tenant naming a thousand deployments spends its own budget; another tenant's first deployment keeps its name", async () => {
    const metrics = createMetrics(undefined, { maxDeploymentLabels: 500, tenants: ["TEAM_A", "TEAM_B"] });
    const engine = engineMetricsOf(metrics);
    for (let i = 0; i < 1_000; i++) engine.stageReached("healthy", `flood-${i}`, "TEAM_B", 2);
    engine.stageReached("healthy", "payments", "TEAM_A", 30);
    // The same name in two tenants is two apps, two series.
    engine.stageReached("healthy", "flood-0", "TEAM_A", 40);

    const series = seriesOf(await metrics.registry.metrics(), "stagewatch_stage_reached_seconds_count");
    const byTenant = (tenant: string) => series.filter((s) => s.tenant === tenant);
    expect(byTenant("TEAM_B")).toHaveLength(501);
    expect(byTenant("TEAM_B").find((s) => s.deployment === "(other)")).toMatchObject({ value: "500" });
    expect(byTenant("TEAM_A").map((s) => [s.deployment, s.value])).toEqual([
      ["payments", "1"],
      ["flood-0", "1"],
    ]);
    expect(series.every((s) => s.tenant !== undefined)).toBe(true);
  });

  it("failures_total bounds reasons per tenant, kinds for all", async () => {
    const metrics = createMetrics(undefined, { tenants: ["TEAM_A", "TEAM_B"] });
    const engine = engineMetricsOf(metrics);
    // What issue 32's custom resource did: a new reason on every write.
    for (let i = 0; i < 300; i++) engine.resourceFailed("example.com/Widget", `Planted${i}`, "TEAM_B");
    engine.resourceFailed("apps/Deployment", "ImagePullBackOff", "TEAM_A");

    const series = seriesOf(await metrics.registry.metrics(), "stagewatch_failures_total");
    expect(series.filter((s) => s.tenant === "TEAM_B")).toHaveLength(201);
    expect(series.find((s) => s.tenant === "TEAM_B" && s.reason === otherLabelValue)).toMatchObject({ value: "100" });
    expect(series.filter((s) => s.tenant === "TEAM_A")).toEqual([{ kind: "apps/Deployment", reason: "ImagePullBackOff", tenant: "TEAM_A", value: "1" }]);
  });

  it("history_expected_seconds keeps each tenant's last deployments: another tenant's many do not push them out", async () => {
    const metrics = createMetrics(undefined, { tenants: ["TEAM_A", "TEAM_B"] });
    const engine = engineMetricsOf(metrics);
    const estimate = { healthy: { medianSeconds: 80, p90Seconds: 100, p95Seconds: 110, samples: 5, earlierSeconds: [60, 70, 80, 90, 100] } };
    engine.expectation("payments", "TEAM_A", estimate);
    for (let i = 0; i < expectationSeriesLimit + 50; i++) engine.expectation(`flood-${i}`, "TEAM_B", estimate);

    const series = seriesOf(await metrics.registry.metrics(), "stagewatch_history_expected_seconds");
    expect(series.filter((s) => s.tenant === "TEAM_A")).toEqual([
      { deployment: "payments", stage: "healthy", history_quantile: "0.5", tenant: "TEAM_A", value: "80" },
      { deployment: "payments", stage: "healthy", history_quantile: "0.9", tenant: "TEAM_A", value: "100" },
    ]);
    const teamB = new Set(series.filter((s) => s.tenant === "TEAM_B").map((s) => s.deployment));
    expect(teamB.size).toBe(expectationSeriesLimit);
    expect(teamB.has("flood-0")).toBe(false);
    expect(teamB.has(`flood-${expectationSeriesLimit + 49}`)).toBe(true);
  });

  it("events_dropped_total starts at zero for every tenant of the file, and counts each tenant's drops", async () => {
    const metrics = createMetrics(undefined, { tenants: ["TEAM_A", "TEAM_B"] });
    const bus = busMetricsOf(metrics);
    for (let i = 0; i < 3; i++) bus.eventDropped("TEAM_B");
    const series = seriesOf(await metrics.registry.metrics(), "stagewatch_events_dropped_total");
    expect(series).toEqual([
      { tenant: "TEAM_A", value: "0" },
      { tenant: "TEAM_B", value: "3" },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { boundedLabel, otherLabelValue } from "./labelBounds.js";
import { createMetrics, engineMetricsOf } from "./metrics.js";

describe("bounded labels", () => {
  it("keep the first max values, count later ones as (other), and cut long ones", () => {
    const label = boundedLabel(2);
    expect(["a", "b", "c", "a", "d"].map(label)).toEqual(["a", "b", otherLabelValue, "a", otherLabelValue]);
    expect(boundedLabel(5)("x".repeat(100))).toHaveLength(64);
  });

  it("bound stage_reached_seconds' deployments and failures_total's reasons in the registry", async () => {
    const metrics = createMetrics(undefined, { maxDeploymentLabels: 3 });
    const engine = engineMetricsOf(metrics);
    for (let i = 0; i < 10; i++) engine.stageReached("applied", `app-${i}`, 1);
    for (let i = 0; i < 500; i++) engine.resourceFailed("example.com/Widget", `Reason${i}`);
    const text = await metrics.registry.metrics();
    const deployments = new Set([...text.matchAll(/stage_reached_seconds_count\{stage="applied",deployment="([^"]+)"\}/g)].map((m) => m[1]));
    expect(deployments).toEqual(new Set(["app-0", "app-1", "app-2", "(other)"]));
    expect(text).toContain('stage_reached_seconds_count{stage="applied",deployment="(other)"} 7');
    expect([...text.matchAll(/stagewatch_failures_total\{/g)]).toHaveLength(201);
  });
});

// The cluster benchmark's arithmetic (bench/cluster): Prometheus text, histogram quantiles over
// the increase between two scrapes, and latency percentiles.
import { describe, expect, test } from "vitest";
import { histogramQuantiles, parseMetrics, total } from "../../bench/cluster/metrics.ts";
import { latencies } from "../../bench/cluster/scale.ts";

const scrape = (buckets: Record<string, number>) =>
  parseMetrics(
    [
      "# HELP stagewatch_event_to_verdict_seconds x",
      "# TYPE stagewatch_event_to_verdict_seconds histogram",
      ...Object.entries(buckets).map(([le, n]) => `stagewatch_event_to_verdict_seconds_bucket{le="${le}"} ${n}`),
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="bench-a-stagewatch-list",priority_level="workload-low"} 3',
      'apiserver_flowcontrol_dispatched_requests_total{flow_schema="bench-a-stagewatch-watch",priority_level="workload-low"} 4',
    ].join("\n"),
  );

describe("bench cluster metrics", () => {
  test("samples with labels, summed by a label match", () => {
    const samples = scrape({ "0.01": 1 });
    expect(total(samples, "apiserver_flowcontrol_dispatched_requests_total")).toBe(7);
    expect(total(samples, "apiserver_flowcontrol_dispatched_requests_total", { flow_schema: "bench-a-stagewatch-list" })).toBe(3);
  });

  test("quantiles of a histogram's increase are the upper bounds of their buckets", () => {
    const before = scrape({ "0.001": 5, "0.01": 5, "0.1": 5, "+Inf": 5 });
    const after = scrape({ "0.001": 5, "0.01": 104, "0.1": 105, "+Inf": 105 });
    expect(histogramQuantiles(before, after, "stagewatch_event_to_verdict_seconds", [0.5, 0.99, 1])).toEqual({
      count: 100,
      atMostSeconds: { p50: 0.01, p99: 0.01, p100: 0.1 },
    });
    expect(histogramQuantiles(before, before, "stagewatch_event_to_verdict_seconds", [0.5]).atMostSeconds).toEqual({ p50: null });
  });

  test("latency percentiles: nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(latencies(values)).toEqual({ count: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
    expect(latencies([])).toEqual({ count: 0, p50Ms: null, p99Ms: null, maxMs: null });
  });
});

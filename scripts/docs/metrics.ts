// docs/reference/metrics.md: every metric stagewatch defines, read from a registry built as the
// service builds it (createMetrics), so name, type, help, labels and buckets are the code's own.
// prom-client's process and Node.js metrics, which createMetrics also registers, differ by
// platform and Node version: they are named as a group, not listed.
import { collectDefaultMetrics, Registry } from "prom-client";
import { createMetrics } from "../../src/service/metrics.ts";
import { code, generatedNotice, table } from "./markdown.ts";

const prefix = "stagewatch_";

/** What a prom-client metric object holds (its typings give the rendered form instead). */
interface MetricDefinition {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly string[];
  readonly upperBounds?: readonly number[];
  get(): Promise<{ type: string }>;
}

export async function metricsPage(): Promise<string> {
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults, prefix });
  const processMetrics = new Set(defaults.getMetricsAsArray().map((metric) => (metric as unknown as MetricDefinition).name));
  // Both registries of the service together: the OpenMetrics one holds every metric of the other, and the exemplar histogram.
  const { openMetrics } = createMetrics();
  const own = (openMetrics.getMetricsAsArray() as unknown as MetricDefinition[])
    .filter((metric) => !processMetrics.has(metric.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const rows = [];
  for (const metric of own) {
    const { type } = await metric.get();
    const labels = (metric.labelNames ?? []).map(code).join(", ");
    const buckets = type === "histogram" ? ` Buckets: ${metric.upperBounds?.filter((bound) => bound !== Infinity).join(", ")}.` : "";
    rows.push([code(metric.name), type, labels, `${metric.help}${buckets}`]);
  }
  return [
    generatedNotice("src/service/metrics.ts (createMetrics)"),
    "# Metrics",
    "",
    "What `stagewatch serve` exposes on `/metrics` (its `--metrics-host` and `--metrics-port`), in the Prometheus text",
    "format, or OpenMetrics when the scraper asks for it (the only format that carries the exemplars of",
    "`stagewatch_event_to_verdict_seconds`). Besides these, prom-client's process and Node.js metrics, prefixed",
    `${code(prefix)}.`,
    "",
    table(["Metric", "Type", "Labels", "Help"], rows),
    "",
  ].join("\n");
}

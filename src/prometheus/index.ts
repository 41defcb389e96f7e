// Prometheus's HTTP API, what the `verified` stage's metric checks read: one instant query a
// measurement. I/O only; what a value means is verdicts/analysis's.
export { QueryError, instantQuery, measuredValueOf } from "./instantQuery.js";
export type { PrometheusOptions } from "./instantQuery.js";
export { prometheusChecks } from "./metricChecks.js";
export type { PrometheusChecks } from "./metricChecks.js";

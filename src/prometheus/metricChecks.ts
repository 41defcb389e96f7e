// The engine's metric checks (observations' MetricChecks port, matched by shape: this folder imports
// only verdicts) over one Prometheus: the operator's templates and an instant query a measurement.
import type { AnalysisTemplate, MeasuredValue } from "../verdicts/index.js";
import { instantQuery, type PrometheusOptions } from "./instantQuery.js";

export interface PrometheusChecks {
  readonly templates: ReadonlyMap<string, AnalysisTemplate>;
  measure(query: string): Promise<MeasuredValue>;
}

/**
 * A query that fails (Prometheus unreachable, refusing, timing out) is an inconclusive measurement
 * with Prometheus's words, as an empty result is: the template's inconclusiveLimit decides how many
 * a check tolerates, and the verdict says why it had no value.
 */
export function prometheusChecks(templates: ReadonlyMap<string, AnalysisTemplate>, options: PrometheusOptions): PrometheusChecks {
  return {
    templates,
    measure: (query) => instantQuery(options, query).catch((error: unknown) => ({ inconclusive: error instanceof Error ? error.message : String(error) })),
  };
}

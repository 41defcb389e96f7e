// Traces of observations (docs/user/tracing.md): each decided observation as OpenTelemetry spans
// under the caller's trace, built from its record, exported over OTLP in the background.
export { observationSpans } from "./observationSpans.js";
export type { SpanAttributes, SpanEventRecord, SpanRecord } from "./observationSpans.js";
export { noopTraceMetrics, OtlpTraceSink } from "./otlpTraceSink.js";
export type { OtlpTraceSinkOptions, TraceMetrics } from "./otlpTraceSink.js";
export { parseTraceParent, spanIdOf, traceIdOf } from "./traceIds.js";
export type { TraceParentContext } from "./traceIds.js";
export { traceExportFromEnv, TraceSettingsError } from "./traceSettings.js";
export type { TraceExportChoice, TraceExportSettings } from "./traceSettings.js";

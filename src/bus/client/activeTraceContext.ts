// The client's `traceContext` for callers instrumented with OpenTelemetry: the active span's
// context in W3C form, so `observer.observe(...)` inside a traced deploy step joins that trace
// without the caller formatting a traceparent. Only the API package is loaded (no SDK): with no
// SDK registered there is no active span, and nothing is joined.
import { isSpanContextValid, trace } from "@opentelemetry/api";
import type { TraceContextFields } from "./client.js";

export function activeTraceContext(): TraceContextFields | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !isSpanContextValid(context)) return undefined;
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, "0");
  const tracestate = context.traceState?.serialize();
  return { traceparent: `00-${context.traceId}-${context.spanId}-${flags}`, ...(tracestate && { tracestate }) };
}

// The ids of an observation's trace, derived from what its record holds (the request's trace
// context and the observation id), never drawn at random: whichever replica decides the
// observation builds the same trace, the exemplar of its verdict names it without asking anyone,
// and a span exported twice (a crash between export and the lease's removal) is the same span
// twice, which backends keep once, not a second observation.
import { createHash } from "node:crypto";
import type { ObservationRequest } from "../verdicts/index.js";

export interface TraceParentContext {
  readonly traceId: string;
  readonly parentSpanId: string;
  /** The caller's trace flags: a trace the caller does not sample is not exported (the parent decides, as OpenTelemetry's parent-based sampling does). */
  readonly flags: number;
}

/** The request's `traceparent` (validated at the edge: version 00), split into its fields. */
export function parseTraceParent(traceparent: string): TraceParentContext {
  const [, traceId, parentSpanId, flags] = traceparent.split("-");
  return { traceId: traceId!, parentSpanId: parentSpanId!, flags: Number.parseInt(flags!, 16) };
}

function hexDigest(text: string, hexChars: number): string {
  const hex = createHash("sha256").update(text).digest("hex").slice(0, hexChars);
  // An all-zero id is invalid in W3C trace context; one in 2^64 digests needs this.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The caller's trace when the request joined one, else a trace of the observation's own. */
export function traceIdOf(request: Pick<ObservationRequest, "traceparent">, observationId: string): string {
  return request.traceparent ? parseTraceParent(request.traceparent).traceId : hexDigest(`stagewatch trace ${observationId}`, 32);
}

/** A span's id: one per observation and span name (names are unique within an observation's trace). */
export function spanIdOf(observationId: string, spanName: string): string {
  return hexDigest(`stagewatch span ${observationId}\u0000${spanName}`, 16);
}

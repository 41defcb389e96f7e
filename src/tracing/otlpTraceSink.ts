// Exports each decided observation's spans over OTLP with the OpenTelemetry JS SDK (its batch
// span processor and OTLP/HTTP protobuf exporter), configured by the standard OTEL_* variables:
// off unless an endpoint is set (docs/user/tracing.md). The spans are built from the record
// (observationSpans.ts) and handed to the batch processor, which exports them in the background:
// `export` returns at once, so a verdict never waits for a collector, and a collector that is
// down costs a counted, logged failure per batch and the spans of that batch, nothing else.
import type { HrTime, SpanContext } from "@opentelemetry/api";
import { ExportResultCode, millisToHrTime, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace";
import type { Logger } from "../logging/index.js";
import { isTerminal, type DecidedObservation, type ObservationRequest } from "../verdicts/index.js";
import { observationSpans, type SpanRecord } from "./observationSpans.js";
import type { TraceExportSettings } from "./traceSettings.js";
import { traceIdOf } from "./traceIds.js";

export interface TraceMetrics {
  /** One observation's spans handed to the exporter. */
  traceExported(): void;
  /** Spans a failed export dropped (the collector unreachable or refusing). */
  spansFailed(count: number): void;
}

export const noopTraceMetrics: TraceMetrics = { traceExported: () => {}, spansFailed: () => {} };

export interface OtlpTraceSinkOptions {
  readonly settings: TraceExportSettings;
  readonly logger: Logger;
  readonly metrics?: TraceMetrics;
  /** Resource attributes besides those of OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (which win). */
  readonly resource?: Record<string, string>;
  /** The exporter the spans go to; the OTLP/HTTP one by default (tests pass an in-memory one). */
  readonly exporter?: SpanExporter;
}

const scope = { name: "stagewatch" };
// OpenTelemetry's numeric codes (SpanKind.INTERNAL, SpanStatusCode), without loading the API's enums.
const internalKind = 0;
const statusCodes = { unset: 0, ok: 1, error: 2 } as const;

/** Counts and logs what a failed export dropped; the batch processor goes on with the next batch. */
class CountingExporter implements SpanExporter {
  private readonly inner: SpanExporter;
  private readonly metrics: TraceMetrics;
  private readonly logger: Logger;
  private failures = 0;

  constructor(inner: SpanExporter, metrics: TraceMetrics, logger: Logger) {
    this.inner = inner;
    this.metrics = metrics;
    this.logger = logger;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) {
        this.failures += 1;
        this.metrics.spansFailed(spans.length);
        // The first failure and every tenth: a collector down for an hour is not 700 log lines.
        if (this.failures === 1 || this.failures % 10 === 0) {
          this.logger.warn({ spans: spans.length, failures: this.failures, err: result.error }, "trace export failed; spans dropped");
        }
      } else {
        this.failures = 0;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

function toReadableSpan(span: SpanRecord, resource: Resource): ReadableSpan {
  const context: SpanContext = { traceId: span.traceId, spanId: span.spanId, traceFlags: span.traceFlags, isRemote: false };
  const startTime = millisToHrTime(span.startMs);
  const endTime = millisToHrTime(Math.max(span.startMs, span.endMs));
  const durationMs = Math.max(0, span.endMs - span.startMs);
  const duration: HrTime = [Math.floor(durationMs / 1000), Math.round((durationMs % 1000) * 1e6)];
  return {
    name: span.name,
    kind: internalKind,
    spanContext: () => context,
    ...(span.parentSpanId !== undefined && {
      parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: span.traceFlags, isRemote: true },
    }),
    startTime,
    endTime,
    duration,
    status: { code: statusCodes[span.status.code], ...(span.status.message !== undefined && { message: span.status.message }) },
    attributes: span.attributes,
    links: [],
    events: span.events.map((event) => ({ name: event.name, time: millisToHrTime(event.atMs), attributes: event.attributes, droppedAttributesCount: 0 })),
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

export class OtlpTraceSink {
  private readonly processor: BatchSpanProcessor;
  private readonly resource: Resource;
  private readonly metrics: TraceMetrics;
  private readonly logger: Logger;

  constructor(options: OtlpTraceSinkOptions) {
    const { settings } = options;
    this.metrics = options.metrics ?? noopTraceMetrics;
    this.logger = options.logger;
    const exporter =
      options.exporter ?? new OTLPTraceExporter({ url: settings.url, ...(settings.timeoutMs !== undefined && { timeoutMillis: settings.timeoutMs }) });
    this.processor = new BatchSpanProcessor({ exporter: new CountingExporter(exporter, this.metrics, this.logger), ...settings.batch });
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the defaults given here.
    this.resource = resourceFromAttributes({ "service.name": "stagewatch", ...options.resource }).merge(detectResources({ detectors: [envDetector] }));
  }

  /** Builds and queues the observation's spans; never throws, never waits. */
  export(decided: DecidedObservation): void {
    if (!isTerminal(decided.verdict.outcome)) return;
    try {
      for (const span of observationSpans(decided)) this.processor.onEnd(toReadableSpan(span, this.resource));
      this.metrics.traceExported();
    } catch (error) {
      this.logger.error({ observationId: decided.verdict.observationId, err: error }, "observation's spans not built");
    }
  }

  traceIdOf(request: ObservationRequest, observationId: string): string {
    return traceIdOf(request, observationId);
  }

  /** Exports what is queued (shutdown): bounded by the exporter's timeout. */
  async shutdown(): Promise<void> {
    await this.processor.shutdown().catch((error: unknown) => this.logger.warn({ err: error }, "trace export at shutdown failed"));
  }
}

// Prometheus metrics of SPEC section 8, plugged in once at start-up. The modules that count
// things (streams, bus, observations) see only their own narrow interfaces with no-op defaults,
// so unit tests never need a registry. No resource names or observation ids as labels. The one
// name that is a label is the deployment's on stage_reached_seconds (SPEC section 7 makes it a
// metric label; "time to healthy by deployment" is what a platform team asks): it counts apps,
// not objects or requests. A request chooses it, though, and the reason of failures_total comes
// from whatever a custom resource's status says: both are bounded (labelBounds.ts), the first
// `maxDeploymentLabels` deployments (and 200 kinds and reasons) by name, later ones as `(other)`.
// With a tenants file, the series of a deployment (and failures_total, whose reasons a tenant
// writes) carry `tenant`, the NATS account that asked: two teams' `api` are two series, and each
// tenant has its own budget of names and reasons, its overflow its own `(other)`. Without one the
// label is absent, not empty, so the series are what they always were.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric, type OpenMetricsContentType } from "prom-client";
import { requestResults, type BusMetrics } from "../bus/index.js";
import { adoptionCauses, type EngineMetrics, type LeaseMetrics } from "../observations/index.js";
import type { StreamMetrics } from "../streams/index.js";
import type { TraceMetrics } from "../tracing/index.js";
import { outcomes, stages, type Stage, type StageEstimate } from "../verdicts/index.js";
import { boundedLabel, tenantBoundedLabel, tenantLabel } from "./labelBounds.js";

const prefix = "stagewatch_";

// Observations live from seconds (applied) to tens of minutes (slow rollouts).
const observationBuckets = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600];
// Watch event to published verdict: the service's own reaction time.
const reactionBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export type MetricsOptions = {
  /** Distinct deployments stage_reached_seconds names, per tenant; later ones are `(other)`. Default 500. */
  readonly maxDeploymentLabels?: number;
  /** The tenants of the tenants file: their per-tenant counters start at zero. */
  readonly tenants?: readonly string[];
};

export const defaultMaxDeploymentLabels = 500;
const maxFailureLabels = 200;
/** Deployments (per tenant) whose expectation is a series at once: the label stays bounded however many apps come and go. */
export const expectationSeriesLimit = 200;

export function createMetrics(registry = new Registry(), options: MetricsOptions = {}) {
  // The same metrics in the OpenMetrics format, for scrapers that ask for it (Accept): the only
  // format that carries exemplars, here the trace id of a verdict on event_to_verdict_seconds.
  const openMetrics = new Registry<OpenMetricsContentType>();
  openMetrics.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  collectDefaultMetrics({ register: registry, prefix });
  // prom-client names three gauges `_total`, a suffix Prometheus reserves for counters
  // (`promtool check metrics` rejects them); the handle and request counts are noise here anyway.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
    registry.removeSingleMetric(`${prefix}${name}`);
  }
  const registers = [registry];
  const metrics = {
    registry,
    deploymentLabel: tenantBoundedLabel(options.maxDeploymentLabels ?? defaultMaxDeploymentLabels),
    // Kinds are the cluster's (its CRDs), one budget; reasons are what each tenant's statuses say.
    failureKindLabel: boundedLabel(maxFailureLabels),
    failureReasonLabel: tenantBoundedLabel(maxFailureLabels),
    observationsActive: new Gauge({
      name: `${prefix}observations_active`,
      help: "Observations still in progress.",
      registers,
    }),
    observationsTotal: new Counter({
      name: `${prefix}observations_total`,
      help: "Observations decided, by required stage and outcome.",
      labelNames: ["required", "outcome"] as const,
      registers,
    }),
    verdictSeconds: new Histogram({
      name: `${prefix}verdict_seconds`,
      help: "Seconds from an accepted request to its verdict.",
      labelNames: ["required", "outcome"] as const,
      buckets: observationBuckets,
      registers,
    }),
    stageReachedSeconds: new Histogram({
      name: `${prefix}stage_reached_seconds`,
      help: "Seconds from an accepted request to each stage it reached, by stage and deployment (and tenant, with a tenants file).",
      labelNames: ["stage", "deployment", "tenant"] as const,
      buckets: observationBuckets,
      registers,
    }),
    verificationWindowsTotal: new Counter({
      name: `${prefix}verification_windows_total`,
      help: "Verification windows (require verified) that ended, by result: verified, failed (a problem in the new revision's pods), timed_out (the budget ended inside the window), cancelled.",
      labelNames: ["result"] as const,
      registers,
    }),
    failuresTotal: new Counter({
      name: `${prefix}failures_total`,
      help: "Resource failures that decided an observation, by kind and the cluster's reason (and tenant, with a tenants file).",
      labelNames: ["kind", "reason", "tenant"] as const,
      registers,
    }),
    eventToVerdictSeconds: new Histogram({
      name: `${prefix}event_to_verdict_seconds`,
      help: "Seconds from receiving the watch event that decided an observation to publishing its verdict.",
      buckets: reactionBuckets,
      enableExemplars: true,
      // prom-client refuses exemplars on a registry in the Prometheus text format; the plain
      // registry gets the histogram below, and prints it without them.
      registers: [openMetrics],
    }),
    historyExpectedSeconds: new Gauge({
      name: `${prefix}history_expected_seconds`,
      help: `Seconds earlier successful rollouts of a deployment took to each stage (quantile 0.5 and 0.9 of its history, as of its latest verdict); the ${expectationSeriesLimit} deployments observed last (of each tenant, with a tenants file).`,
      // Not `quantile`: Prometheus reserves that label for summaries (promtool check metrics).
      labelNames: ["deployment", "stage", "history_quantile", "tenant"] as const,
      registers,
    }),
    traceExportFailuresTotal: new Counter({
      name: `${prefix}trace_export_failures_total`,
      help: "Spans that could not be exported to the trace collector (dropped: a collector outage never delays a verdict).",
      registers,
    }),
    tracesExportedTotal: new Counter({
      name: `${prefix}traces_exported_total`,
      help: "Observations handed to the trace exporter, one trace each.",
      registers,
    }),
    watchEventsTotal: new Counter({
      name: `${prefix}watch_events_total`,
      help: "Watch events received, by kind and event type.",
      labelNames: ["kind", "type"] as const,
      registers,
    }),
    watchRestartsTotal: new Counter({
      name: `${prefix}watch_restarts_total`,
      help: "Watches restarted, by kind and cause (error, gone, watchdog, closed).",
      labelNames: ["kind", "cause"] as const,
      registers,
    }),
    informerObjects: new Gauge({
      name: `${prefix}informer_objects`,
      help: "Objects held in each informer cache.",
      labelNames: ["kind"] as const,
      registers,
    }),
    requestsTotal: new Counter({
      name: `${prefix}requests_total`,
      help: "Observation requests, by result (accepted, rejected, replayed).",
      labelNames: ["result"] as const,
      registers,
    }),
    observationsAdoptedTotal: new Counter({
      name: `${prefix}observations_adopted_total`,
      help: "Observations taken over from another replica (or this one, restarted), by cause (expired, released).",
      labelNames: ["cause"] as const,
      registers,
    }),
    leasesHeld: new Gauge({
      name: `${prefix}leases_held`,
      help: "Observation leases this replica holds.",
      registers,
    }),
    leaseRenewalsFailedTotal: new Counter({
      name: `${prefix}lease_renewals_failed_total`,
      help: "Heartbeats (the renewal of all of this replica's leases) that were not stored: NATS unreachable, or another process writing under this replica id.",
      registers,
    }),
    eventsBuffered: new Gauge({
      name: `${prefix}events_buffered`,
      help: "Observation events accepted and not yet stored by the event stream (waiting for NATS).",
      registers,
    }),
    eventsBufferedBytes: new Gauge({
      name: `${prefix}events_buffered_bytes`,
      help: "Bytes of the observation events accepted and not yet stored by the event stream.",
      registers,
    }),
    eventsDroppedTotal: new Counter({
      name: `${prefix}events_dropped_total`,
      help: "Progress events and stall notices dropped because the event buffer (all tenants', or the tenant's share) was full; never a stage or a verdict. By tenant, with a tenants file.",
      labelNames: ["tenant"] as const,
      registers,
    }),
    natsPublishFailuresTotal: new Counter({
      name: `${prefix}nats_publish_failures_total`,
      help: "Event publications to NATS that failed (each attempt).",
      registers,
    }),
    untrustedVerdictsTotal: new Counter({
      name: `${prefix}untrusted_verdicts_total`,
      help: "Verdicts the service found and did not sign (a forgery, or a key no longer trusted), by where: an observation's subject on the stream, or a decided record. Never published by the service.",
      labelNames: ["found_in"] as const,
      registers,
    }),
  };
  registry.registerMetric(metrics.eventToVerdictSeconds);
  zeroBoundedSeries(metrics, options.tenants ?? []);
  // The array holds the metric objects themselves (prom-client types them as their rendering).
  for (const metric of registry.getMetricsAsArray() as unknown as (Metric & { name: string })[]) {
    if (!openMetrics.getSingleMetric(metric.name)) openMetrics.registerMetric(metric);
  }
  return { ...metrics, openMetrics, expectationSeries: new ExpectationSeries(metrics.historyExpectedSeconds) };
}

type ExpectationLabel = "deployment" | "stage" | "history_quantile" | "tenant";

/**
 * The history gauge's series, by tenant and deployment (two tenants' `api` are two histories),
 * each tenant's least recently set removed past the limit: one tenant's many deployments never
 * push out another's.
 */
class ExpectationSeries {
  private readonly gauge: Gauge<ExpectationLabel>;
  /** Per tenant (undefined: no tenants file), its deployments in the order last set, with the stages shown. */
  private readonly tenants = new Map<string | undefined, Map<string, Stage[]>>();

  constructor(gauge: Gauge<ExpectationLabel>) {
    this.gauge = gauge;
  }

  set(deployment: string, tenant: string | undefined, estimates: Partial<Record<Stage, StageEstimate>>): void {
    const deployments = this.tenants.get(tenant) ?? new Map<string, Stage[]>();
    this.tenants.set(tenant, deployments);
    this.remove(deployments, deployment, tenant);
    const shown = stages.filter((stage) => estimates[stage] !== undefined);
    for (const stage of shown) {
      this.gauge.set({ deployment, stage, history_quantile: "0.5", ...tenantLabel(tenant) }, estimates[stage]!.medianSeconds);
      this.gauge.set({ deployment, stage, history_quantile: "0.9", ...tenantLabel(tenant) }, estimates[stage]!.p90Seconds);
    }
    deployments.set(deployment, shown);
    if (deployments.size > expectationSeriesLimit) this.remove(deployments, deployments.keys().next().value!, tenant);
  }

  private remove(deployments: Map<string, Stage[]>, deployment: string, tenant: string | undefined): void {
    for (const stage of deployments.get(deployment) ?? []) {
      for (const quantile of ["0.5", "0.9"]) this.gauge.remove({ deployment, stage, history_quantile: quantile, ...tenantLabel(tenant) });
    }
    deployments.delete(deployment);
  }
}

/**
 * Series whose label values are known in advance start at zero: Prometheus sees no increase for a
 * series that first appears at 1, so the first failure of a kind would never show on a dashboard.
 */
function zeroBoundedSeries(
  metrics: Pick<Metrics, "observationsTotal" | "verdictSeconds" | "requestsTotal" | "natsPublishFailuresTotal" | "untrustedVerdictsTotal" | "leaseRenewalsFailedTotal" | "observationsAdoptedTotal" | "eventsDroppedTotal">,
  tenants: readonly string[],
): void {
  for (const required of stages) {
    for (const outcome of outcomes) {
      if (outcome === "in_progress") continue;
      metrics.observationsTotal.inc({ required, outcome }, 0);
      metrics.verdictSeconds.zero({ required, outcome });
    }
  }
  for (const result of requestResults) metrics.requestsTotal.inc({ result }, 0);
  metrics.natsPublishFailuresTotal.inc(0);
  if (tenants.length === 0) metrics.eventsDroppedTotal.inc(0);
  for (const tenant of tenants) metrics.eventsDroppedTotal.inc({ tenant }, 0);
  for (const foundIn of ["stream", "record"]) metrics.untrustedVerdictsTotal.inc({ found_in: foundIn }, 0);
  metrics.leaseRenewalsFailedTotal.inc(0);
  for (const cause of adoptionCauses) metrics.observationsAdoptedTotal.inc({ cause }, 0);
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Counts what the trace exporter did (tracing/). */
export function traceMetricsOf(metrics: Metrics): TraceMetrics {
  return {
    traceExported: () => metrics.tracesExportedTotal.inc(),
    spansFailed: (count) => metrics.traceExportFailuresTotal.inc(count),
  };
}

// The narrow interfaces of the folders that count, each backed by the metrics above.

export function streamMetricsOf(metrics: Metrics): StreamMetrics {
  return {
    watchEvent: (kind, type) => metrics.watchEventsTotal.inc({ kind, type }),
    watchRestart: (kind, cause) => metrics.watchRestartsTotal.inc({ kind, cause }),
    objects: (kind, count) => metrics.informerObjects.set({ kind }, count),
  };
}

export function busMetricsOf(metrics: Metrics): BusMetrics {
  return {
    requestAnswered: (result) => metrics.requestsTotal.inc({ result }),
    publishFailed: () => metrics.natsPublishFailuresTotal.inc(),
    eventsBuffered: (count, bytes) => {
      metrics.eventsBuffered.set(count);
      metrics.eventsBufferedBytes.set(bytes);
    },
    eventDropped: (tenant) => metrics.eventsDroppedTotal.inc(tenantLabel(tenant)),
    untrustedVerdictFound: () => metrics.untrustedVerdictsTotal.inc({ found_in: "stream" }),
  };
}

export function leaseMetricsOf(metrics: Metrics): LeaseMetrics {
  return {
    leasesHeld: (count) => metrics.leasesHeld.set(count),
    leaseRenewalFailed: () => metrics.leaseRenewalsFailedTotal.inc(),
    observationAdopted: (cause) => metrics.observationsAdoptedTotal.inc({ cause }),
  };
}

export function engineMetricsOf(metrics: Metrics): EngineMetrics {
  return {
    observationStarted: () => metrics.observationsActive.inc(),
    stageReached: (stage, deployment, tenant, seconds) =>
      metrics.stageReachedSeconds.observe({ stage, deployment: metrics.deploymentLabel(tenant, deployment), ...tenantLabel(tenant) }, seconds),
    observationDecided: (required, outcome, seconds) => {
      metrics.observationsActive.dec();
      metrics.observationsTotal.inc({ required, outcome });
      metrics.verdictSeconds.observe({ required, outcome }, seconds);
    },
    verificationEnded: (outcome) => metrics.verificationWindowsTotal.inc({ result: outcome === "succeeded" ? "verified" : outcome }),
    resourceFailed: (kind, reason, tenant) =>
      metrics.failuresTotal.inc({ kind: metrics.failureKindLabel(kind), reason: metrics.failureReasonLabel(tenant, reason), ...tenantLabel(tenant) }),
    eventToVerdict: (seconds, traceId) =>
      metrics.eventToVerdictSeconds.observe({ value: seconds, ...(traceId !== undefined && { exemplarLabels: { trace_id: traceId } }) }),
    expectation: (deployment, tenant, estimates) => metrics.expectationSeries.set(deployment, tenant, estimates),
    observationLeft: () => metrics.observationsActive.dec(),
    untrustedVerdictFound: () => metrics.untrustedVerdictsTotal.inc({ found_in: "record" }),
  };
}

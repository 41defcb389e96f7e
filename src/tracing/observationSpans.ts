// A decided observation as spans (issue 22), built from its record alone (verdict and timeline)
// when the verdict is decided, so the trace is whole whichever replica decides, however many
// replicas drove it before:
//
//   observe <deployment>            request to decision; status from the outcome
//   ├─ stage applied                start (or the stage before) to the moment it was reached
//   ├─ stage bootstrapped           ... the stage that failed or ran out of budget ends in error
//   ├─ stage healthy
//   ├─ Deployment payments/api      start to settled or failed (else to the decision), last reason
//   │    event "Warning FailedCreate"   the newest Warning event about it or what it owns
//   └─ Job payments/migrate
//   events on the observation: stalled, adopted (a replica took it over), failure
//
// Attributes follow OpenTelemetry's semantic conventions for Kubernetes where one exists
// (`k8s.namespace.name`, `k8s.deployment.name`, `k8s.job.name`, `k8s.pod.name`, ...); stagewatch's
// own are `stagewatch.*`. Pure: ids from traceIds.ts, times from the record.
import {
  describeResource,
  identityKey,
  stageRank,
  stages,
  type DecidedObservation,
  type ResourceIdentity,
  type ResourceVerdict,
  type Stage,
} from "../verdicts/index.js";
import { parseTraceParent, spanIdOf, traceIdOf } from "./traceIds.js";

export type SpanAttributes = Record<string, string | number | boolean>;

export interface SpanEventRecord {
  readonly name: string;
  readonly atMs: number;
  readonly attributes: SpanAttributes;
}

export interface SpanRecord {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string | undefined;
  /** The caller's trace flags, carried to every span (0 without a caller's trace: stagewatch's own, sampled). */
  readonly traceFlags: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly status: { readonly code: "ok" | "error" | "unset"; readonly message?: string };
  readonly attributes: SpanAttributes;
  readonly events: readonly SpanEventRecord[];
}

/** The semantic-convention attribute naming a resource of this kind, where the conventions have one. */
const kindAttribute: Readonly<Record<string, string>> = {
  Deployment: "k8s.deployment.name",
  ReplicaSet: "k8s.replicaset.name",
  StatefulSet: "k8s.statefulset.name",
  DaemonSet: "k8s.daemonset.name",
  Job: "k8s.job.name",
  CronJob: "k8s.cronjob.name",
  Pod: "k8s.pod.name",
  Namespace: "k8s.namespace.name",
};

/** The conventions name Kubernetes' own kinds; a custom `Deployment` of another group is not one. */
const builtInApiVersions = new Set(["v1", "apps/v1", "batch/v1"]);

function resourceAttributes(identity: ResourceIdentity): SpanAttributes {
  const named = kindAttribute[identity.kind];
  return {
    "stagewatch.resource.api_version": identity.apiVersion,
    "stagewatch.resource.kind": identity.kind,
    "stagewatch.resource.name": identity.name,
    ...(identity.namespace !== undefined && { "k8s.namespace.name": identity.namespace }),
    ...(named !== undefined && builtInApiVersions.has(identity.apiVersion) && { [named]: identity.name }),
  };
}

const stageSpanName = (stage: Stage) => `stage ${stage}`;

/** Every span of one decided observation, the observation's own first. */
export function observationSpans({ request, verdict, timeline }: DecidedObservation): SpanRecord[] {
  const id = verdict.observationId;
  const parent = request.traceparent ? parseTraceParent(request.traceparent) : undefined;
  const traceId = traceIdOf(request, id);
  const traceFlags = parent?.flags ?? 1;
  const startMs = Date.parse(verdict.startedAt);
  const endMs = Date.parse(verdict.decidedAt ?? verdict.startedAt);
  const rootName = `observe ${verdict.deployment}`;
  const rootId = spanIdOf(id, rootName);
  // A child stays inside the observation: the timeline notes a moment with the driver's clock
  // read a millisecond after the reducer's decision may have read it.
  const within = (ms: number) => Math.min(Math.max(ms, startMs), endMs);
  const span = (name: string, fields: Omit<SpanRecord, "name" | "traceId" | "spanId" | "parentSpanId" | "traceFlags">): SpanRecord => ({
    name,
    traceId,
    spanId: spanIdOf(id, name),
    parentSpanId: rootId,
    traceFlags,
    ...fields,
    startMs: within(fields.startMs),
    endMs: within(fields.endMs),
  });

  const failure = verdict.failure;
  const rootEvents: SpanEventRecord[] = timeline.notices.map((notice) => ({ name: notice.type, atMs: notice.atMs, attributes: { message: notice.message } }));
  if (failure) {
    rootEvents.push({
      name: "failure",
      atMs: endMs,
      attributes: {
        "stagewatch.stage": failure.stage,
        "stagewatch.failure.reason": failure.reason,
        "stagewatch.failure.message": failure.message,
        "stagewatch.failure.resource": describeResource(failure.resource),
        ...resourceAttributes(failure.resource),
        ...(failure.logTail && { "k8s.pod.name": failure.logTail.pod, "k8s.container.name": failure.logTail.container }),
      },
    });
  }
  const comparison = verdict.history?.comparison;
  const expected = verdict.history?.stages[verdict.required];
  const root: SpanRecord = {
    name: rootName,
    traceId,
    spanId: rootId,
    parentSpanId: parent?.parentSpanId,
    traceFlags,
    startMs,
    endMs,
    status:
      verdict.outcome === "succeeded"
        ? { code: "ok" }
        : verdict.outcome === "cancelled"
          ? { code: "unset" }
          : { code: "error", message: verdict.message },
    attributes: {
      "stagewatch.observation.id": id,
      "stagewatch.deployment": verdict.deployment,
      "stagewatch.key": verdict.key,
      "stagewatch.required": verdict.required,
      "stagewatch.reached": verdict.reached,
      "stagewatch.outcome": verdict.outcome,
      "stagewatch.resources": verdict.resources.length,
      "stagewatch.adoptions": timeline.notices.filter((notice) => notice.type === "adopted").length,
      ...(request.defaultNamespace !== undefined && { "k8s.namespace.name": request.defaultNamespace }),
      ...(expected && { "stagewatch.history.median_seconds": expected.medianSeconds, "stagewatch.history.p90_seconds": expected.p90Seconds, "stagewatch.history.samples": expected.samples }),
      ...(comparison && { "stagewatch.history.comparison": comparison.message }),
    },
    events: rootEvents,
  };

  const stageSpans: SpanRecord[] = [];
  let stageStart = startMs;
  for (const stage of stages) {
    if (stageRank(stage) > stageRank(verdict.required)) break;
    const reachedAt = timeline.stages[stage];
    if (reachedAt !== undefined) {
      stageSpans.push(span(stageSpanName(stage), { startMs: stageStart, endMs: reachedAt, status: { code: "ok" }, attributes: { "stagewatch.stage": stage }, events: [] }));
      stageStart = reachedAt;
      continue;
    }
    // The first stage not reached: where the observation failed, ran out of budget or was cancelled.
    if (stageRank(stage) > stageRank(verdict.reached)) {
      const status = verdict.outcome === "cancelled" ? { code: "unset" as const } : { code: "error" as const, message: failure?.stage === stage ? `${failure.reason}: ${failure.message}` : verdict.outcome };
      stageSpans.push(span(stageSpanName(stage), { startMs: stageStart, endMs, status, attributes: { "stagewatch.stage": stage, "stagewatch.reached": false }, events: [] }));
      break;
    }
  }

  const resourceSpans = verdict.resources.map((resource) => resourceSpan(resource, timeline.resources[identityKey(resource.identity)] ?? endMs));
  return [root, ...stageSpans, ...resourceSpans];

  function resourceSpan(resource: ResourceVerdict, resourceEndMs: number): SpanRecord {
    const warning = resource.warning;
    return span(describeResource(resource.identity), {
      startMs,
      endMs: resourceEndMs,
      status:
        resource.state === "settled"
          ? { code: "ok" }
          : resource.state === "failed"
            ? { code: "error", message: `${resource.reason ?? "Failed"}: ${resource.message ?? ""}` }
            : { code: "unset" },
      attributes: {
        ...resourceAttributes(resource.identity),
        "stagewatch.resource.state": resource.state,
        ...(resource.reason !== undefined && { "stagewatch.resource.reason": resource.reason }),
        ...(resource.message !== undefined && { "stagewatch.resource.message": resource.message }),
      },
      events: warning
        ? [
            {
              name: `Warning ${warning.reason}`,
              // Clamped into the span: the event may predate the observation by a few seconds (warningSlackMs).
              atMs: Math.min(Math.max(Date.parse(warning.lastSeen) || startMs, startMs), resourceEndMs),
              attributes: {
                "k8s.event.reason": warning.reason,
                "k8s.event.message": warning.message,
                "k8s.event.count": warning.count,
                "k8s.event.object": `${warning.kind} ${warning.name}`,
                ...(warning.kind === "Pod" && { "k8s.pod.name": warning.name }),
              },
            },
          ]
        : [],
    });
  }
}

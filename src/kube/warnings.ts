// Warning events as stagewatch keeps them: what a verdict shows of one (who it is about, the
// reason, the message, how often, when last) and nothing else. The causes a status never names
// are here: a ResourceQuota or an admission webhook refusing pod creation (FailedCreate on the
// ReplicaSet or Job), a volume that cannot mount (FailedMount), no node to fit (FailedScheduling),
// a failing probe (Unhealthy).
//
// Two writers fill the same core/v1 collection, and they count differently:
// - the legacy recorder (controllers, kubelet) writes `count`, `firstTimestamp`, `lastTimestamp`;
// - events.k8s.io/v1 clients (the scheduler) write `eventTime` and, once it repeats, `series`
//   (`count`, `lastObservedTime`); read through core/v1 their `count` is 0 and the timestamps null.

import { heldPrefix, maxHeldReasonChars, maxHeldTextChars } from "./heldText.js";

/**
 * cluster-autoscaler's word on a pod the scheduler could not place, recorded as Normal events
 * (source.component `cluster-autoscaler`, processors/status/eventing_scale_up_processor.go): a
 * scale-up it started for the pod (`pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]`), or why
 * no node group it knows could take it (`pod didn't trigger scale-up: ...`), written again each
 * loop (10 s) in which it starts no scale-up, its recorder's spam filter permitting.
 */
export const autoscalerReasons = {
  scaleUpTriggered: "TriggeredScaleUp",
  noScaleUp: "NotTriggerScaleUp",
} as const;

export const autoscalerReasonSet: ReadonlySet<string> = new Set(Object.values(autoscalerReasons));

/** The object an event is about, as its `involvedObject` names it. */
export interface InvolvedObject {
  readonly uid: string;
  /** Written by every recorder for objects of the API (`v1`, `apps/v1`); absent for some node-level events. */
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface ClusterWarning {
  readonly involved: InvolvedObject;
  /**
   * The namespace the Event itself lives in: who may create Events there could have written it.
   * The API server only checks it against `involvedObject.namespace`, never that the object exists
   * there or has that UID, so a warning counts for an object only when both name the object's own
   * namespace (warningIsAbout).
   */
  readonly eventNamespace: string;
  readonly reason: string;
  readonly message: string;
  /** Occurrences so far (at least 1). */
  readonly count: number;
  /** When it last happened, in ms since the epoch. */
  readonly lastSeenMs: number;
}

/** One event off the wire: its resourceVersion (where a watch resumes) and the warning, if it is a usable one. */
export interface WarningEventLine {
  readonly metadata: { readonly resourceVersion?: string | undefined };
  readonly warning: ClusterWarning | undefined;
}

type Json = Record<string, unknown>;

/**
 * Where the API server lets an Event about a cluster-scoped object (a Node, a PersistentVolume, a
 * cluster-scoped custom resource) be created: `default`, where both recorders put them, and
 * `kube-system`, which validation also accepts for events.k8s.io events (those with an eventTime).
 * Whoever may create Events in these may write about any cluster-scoped object.
 */
export const clusterScopedEventNamespaces: ReadonlySet<string> = new Set(["default", "kube-system"]);

/** The identity a warning must name to count for an object: any KubeObject has it. */
export interface WarnedObject {
  readonly kind: string;
  readonly metadata: { readonly uid: string; readonly name: string; readonly namespace?: string | undefined };
}

/**
 * Whether the Event could only have been written by someone with access to the object's own
 * namespace (or, for a cluster-scoped object, one of clusterScopedEventNamespaces): its UID alone
 * proves nothing, since `view` shows a UID and `edit` in any namespace creates Events there naming
 * it.
 */
export function eventNamespaceFits(eventNamespace: string, involvedNamespace: string | undefined): boolean {
  return involvedNamespace === undefined ? clusterScopedEventNamespaces.has(eventNamespace) : eventNamespace === involvedNamespace;
}

/** Whether `warning` is about `object`: the same UID, kind, name and namespace. */
export function warningIsAbout({ involved }: ClusterWarning, object: WarnedObject): boolean {
  return warnedObjectKey(involved) === warnedObjectKey(object);
}

/** The index key of the warnings about an object: its whole identity, never its UID alone. */
export function warnedObjectKey(object: WarnedObject | InvolvedObject): string {
  const { uid, name, namespace } = "metadata" in object ? object.metadata : object;
  return `${uid}/${object.kind}/${namespace ?? ""}/${name}`;
}

/** What is kept of an event's message and reason as it comes off the watch (heldText.ts). */
export const maxWarningMessageChars = maxHeldTextChars;
export const maxWarningReasonChars = maxHeldReasonChars;

/**
 * The warning a core/v1 Event carries; undefined when the value is not an object with metadata.
 * An event without an involved UID, a reason or any time is kept as a line (its resourceVersion
 * still counts) but carries no warning: nothing could route it or say when it happened. Nor does
 * one whose own namespace does not fit the object it names (eventNamespaceFits), which the API
 * server should have refused: it is not evidence about that object.
 */
export function decodeWarningEvent(raw: unknown): WarningEventLine | undefined {
  if (!isRecord(raw) || !isRecord(raw.metadata)) return undefined;
  const metadata = { resourceVersion: str(raw.metadata.resourceVersion) };
  const involved = isRecord(raw.involvedObject) ? raw.involvedObject : {};
  const uid = str(involved.uid);
  const kind = str(involved.kind);
  const name = str(involved.name);
  const reason = str(raw.reason);
  const series = isRecord(raw.series) ? raw.series : {};
  const lastSeenMs = firstTime(series.lastObservedTime, raw.lastTimestamp, raw.eventTime, raw.metadata.creationTimestamp);
  if (!uid || !kind || !name || !reason || lastSeenMs === undefined) return { metadata, warning: undefined };
  const namespace = str(involved.namespace);
  const eventNamespace = str(raw.metadata.namespace) ?? "";
  if (!eventNamespaceFits(eventNamespace, namespace)) return { metadata, warning: undefined };
  const apiVersion = str(involved.apiVersion);
  const count = Math.max(1, num(series.count) ?? num(raw.count) ?? 1);
  return {
    metadata,
    warning: {
      involved: { uid, kind, name, ...(apiVersion && { apiVersion }), ...(namespace && { namespace }) },
      eventNamespace,
      reason: heldPrefix(reason, maxWarningReasonChars),
      message: heldPrefix(str(raw.message) ?? "", maxWarningMessageChars),
      count,
      lastSeenMs,
    },
  };
}

function firstTime(...values: unknown[]): number | undefined {
  for (const value of values) {
    const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
    if (Number.isFinite(ms)) return ms;
  }
  return undefined;
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const str = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

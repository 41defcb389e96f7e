// What a rule concludes about one resource, kstatus-style: a closed state, the cluster's own
// CamelCase reason when there is one, and a line a person reads. Readings are built only through
// these constructors, which is where cluster text is cut, scrubbed, cleared of control characters
// and folded onto one line, and where a reason that is not a reason word becomes `UnreadableReason`
// (reasons.ts): a verdict prints one line a resource, and nothing unscrubbed may leave the service.
import { shownReason } from "../contract/reasons.js";
import type { ResourceState, ResourceWarning } from "../contract/schemas.js";
import { scrubBounded } from "../text/scrub.js";

export interface ResourceReading {
  readonly state: ResourceState;
  /** The cluster's reason (`ImagePullBackOff`, `BackoffLimitExceeded`), one of `readingReasons`, or `UnreadableReason`. */
  readonly reason?: string;
  readonly message: string;
  /**
   * The newest Warning event about the object or what it owns (warnings.ts). Kept apart from the
   * message so that a warning repeating is not mistaken for progress; shown after it.
   */
  readonly warning?: ResourceWarning;
  /** Settled workloads: the image digests their ready pods run (readyImages.ts). */
  readonly images?: readonly string[];
  /** A failure by a failOn reason: where and since when it holds, for the reason's grace (reducer/reasonGrace.ts). */
  readonly held?: HeldEvidence;
  /**
   * A workload's replica count its controller reconciles to (a Deployment's spec.replicas, once the
   * controller observed it): what the reducer compares between readings to see a scale.
   */
  readonly replicas?: number;
  /** Set by the reducer: the newest scale seen during the observation, said before the message. */
  readonly scaled?: ScaleChange;
}

/**
 * The evidence a grace is measured on. Rules write it with the failure, since only they read the
 * object the reason holds on; the reducer decides with it and never shows it.
 */
export interface HeldEvidence {
  /** The object the reason holds on: `Pod api-7f9c-x2`, `ReplicaSet api-7f9c`. A reason held on another object starts a new clock. */
  readonly about: string;
  /**
   * When it began to hold, by the cluster's own word: the pod condition the problem keeps False
   * (its lastTransitionTime), which a pod that recovers turns True and a new crash turns False
   * again. Undefined where the cluster writes none: the observation's first sight of it counts.
   */
  readonly sinceMs?: number | undefined;
  /** A container's restarts so far. */
  readonly restarts?: number | undefined;
  /** A Warning event's last repeat: it holds only while it repeats within the grace. */
  readonly lastSeenMs?: number | undefined;
}

/** The replica count a workload was scaled from and to while observed (an autoscaler, `kubectl scale`). */
export interface ScaleChange {
  readonly from: number;
  readonly to: number;
}

/** `scaled 2 -> 5`. */
export function describeScale({ from, to }: ScaleChange): string {
  return `scaled ${from} -> ${to}`;
}

/** The message as a verdict shows it: a scale seen during the observation, the reading's own, then the warning. */
export function shownMessage(reading: ResourceReading): string {
  const { message, warning, scaled } = reading;
  const count = warning && warning.count > 1 ? ` (x${warning.count})` : "";
  const warned = warning && `${warning.kind} ${warning.name}: ${warning.reason}${count}: ${warning.message}`;
  return [scaled && describeScale(scaled), message, warned].filter(Boolean).join("; ");
}

/** Reasons stagewatch writes itself, where the cluster has none to give. */
export const readingReasons = {
  /** The object carries a deletionTimestamp; finalizers may hold it for a while. */
  terminating: "Terminating",
  /** metadata.generation is older than the generation the request names. */
  waitingForGeneration: "WaitingForGeneration",
  /** status.observedGeneration (or a condition's) is behind metadata.generation. */
  generationNotObserved: "GenerationNotObserved",
  /** No status written yet by the controller. */
  awaitingStatus: "AwaitingStatus",
  /** Absent after the caches synced, or deleted before it settled. */
  notFound: "NotFound",
  /** Deleted; a re-create within the grace is followed. */
  deleted: "Deleted",
} as const;

/**
 * The most of a reading's message a verdict carries. A condition message is a sentence or two, a
 * termination message at most 4 KiB (the kubelet's cap) and usually a line; but any writer of a
 * custom resource's status can put a megabyte there, and a verdict holds a message a resource.
 * The log tail (logTail.ts) is where a failure's long text belongs.
 */
export const maxMessageLength = 1024;

// Whitespace around a line break, found from the start of its run only: `\s*\r?\n\s*` scans a
// run of spaces again from each space when no line break ends it, quadratic in the run.
const lineBreak = /(?<![^\S\n])[^\S\n]*\n\s*/g;

/**
 * Cluster text as it may leave the service: cut to `maxChars` first (so a megabyte costs what the
 * bound costs), credentials scrubbed and control characters removed (scrub.ts), on one line.
 */
export function clean(message: string, maxChars: number = maxMessageLength): string {
  if (maxChars !== maxMessageLength || message.length > memoizedLength) return cleanNow(message, maxChars);
  let cleaned = recentlyCleaned.get(message);
  if (cleaned === undefined) {
    // Dropped whole when full: a cache of what repeats now, not an index of every text seen.
    if (recentlyCleaned.size >= memoizedTexts) recentlyCleaned.clear();
    recentlyCleaned.set(message, (cleaned = cleanNow(message, maxChars)));
  }
  return cleaned;
}

function cleanNow(message: string, maxChars: number): string {
  return scrubBounded(message, maxChars).replace(lineBreak, " ").trim();
}

// Every reading is cleaned, and most are the same few texts again ("2 of 20 updated replicas are
// available", one per pod event of a rollout): scrubbing them was 2% of the live service's CPU
// (bench/results/cluster-profile-bundled.json). Only short texts are kept, so the memo holds at
// most 2,048 x 256 characters.
const memoizedTexts = 2_048;
const memoizedLength = 256;
const recentlyCleaned = new Map<string, string>();

export function pending(reason: string | undefined, message: string): ResourceReading {
  return reason === undefined ? { state: "pending", message: clean(message) } : { state: "pending", reason: shownReason(reason), message: clean(message) };
}

export function settled(message: string): ResourceReading {
  return { state: "settled", message: clean(message) };
}

export function failed(reason: string, message: string, held?: HeldEvidence): ResourceReading {
  return { state: "failed", reason: shownReason(reason), message: clean(message), ...(held && { held }) };
}

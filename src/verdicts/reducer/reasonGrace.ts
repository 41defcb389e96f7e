// A failOn reason with a grace (issue 35): terminal once it has held that long, pending before.
// "Held" is read off the cluster's own evidence, which the rules write with the failure
// (HeldEvidence in rules/reading.ts):
// - on the same object: the reason held on another pod or ReplicaSet starts a new clock;
// - continuously: a pod problem counts from the pod condition it keeps False (PodScheduled, Ready).
//   A crash loop keeps Ready False through its restarts, so the clock runs across them; a pod that
//   recovers turns Ready True, and its next crash starts a new clock. Where the cluster writes no
//   such time, the observation's first sight of the reason counts;
// - a Warning event holds while it keeps repeating within the grace: silent for longer than its
//   grace, it is shown but no longer terminal (the quota was raised, the volume attached).
// Pure: the reducer passes the time and keeps the clock on the resource (observationState.ts),
// and wakes the observation at the clock's end (nextWakeAt).
import type { FailOnPolicy } from "../contract/failOn.js";
import { failed, pending, type HeldEvidence, type ResourceReading } from "../rules/reading.js";
import { formatDuration, joinParts } from "../text/text.js";

/** A reason within its grace on one resource. */
export interface ReasonClock {
  readonly reason: string;
  readonly about: string;
  readonly sinceMs: number;
  /** When the grace ends: the resource fails then if the reason still holds. */
  readonly endMs: number;
  readonly graceMs: number;
  /** The failure as the rule read it, before the grace held it back. */
  readonly failure: ResourceReading;
}

export interface GracedReading {
  readonly reading: ResourceReading;
  /** Set while the reason is within its grace. */
  readonly clock?: ReasonClock | undefined;
}

/**
 * The reading as the request's graces make it at `nowMs`: a failure by a reason with a grace is
 * pending until the reason has held for it, then failed; any other reading passes unchanged.
 * `previous` is the resource's clock before this reading: its start carries over when the same
 * reason holds on the same object and the cluster gave no time of its own.
 */
export function withGrace(reading: ResourceReading, previous: ReasonClock | undefined, graces: FailOnPolicy, nowMs: number): GracedReading {
  const graceMs = reading.state === "failed" && reading.reason !== undefined ? (graces.get(reading.reason) ?? 0) : 0;
  if (graceMs === 0 || reading.reason === undefined) return { reading };
  const reason = reading.reason;
  const held: HeldEvidence = reading.held ?? { about: "" };
  if (held.lastSeenMs !== undefined && nowMs - held.lastSeenMs > graceMs) {
    // A warning that stopped repeating is history, not a reason that holds.
    return { reading: quiet(reading, reason, nowMs - held.lastSeenMs) };
  }
  const carried = previous?.reason === reason && previous.about === held.about ? previous.sinceMs : nowMs;
  // A node's clock may run ahead of this one: a problem does not begin in the future.
  const sinceMs = Math.min(held.sinceMs ?? carried, nowMs);
  const clock: ReasonClock = { reason, about: held.about, sinceMs, endMs: sinceMs + graceMs, graceMs, failure: reading };
  if (nowMs >= clock.endMs) return { reading: graceOver(clock) };
  return { reading: withinGrace(clock, nowMs), clock };
}

/**
 * The reading at the clock's end: the failure, or, for a warning that stopped repeating by then,
 * the pending reading saying so (it was seen once and not again since the clock started).
 */
export function readingAtGraceEnd(clock: ReasonClock): ResourceReading {
  const lastSeenMs = clock.failure.held?.lastSeenMs;
  if (lastSeenMs !== undefined && clock.endMs - lastSeenMs >= clock.graceMs) return quiet(clock.failure, clock.reason, clock.endMs - lastSeenMs);
  return graceOver(clock);
}

/** `CrashLoopBackOff for 40s of 2m0s (restarts 3)`: what a person reads while the grace runs. */
function withinGrace(clock: ReasonClock, nowMs: number): ResourceReading {
  const { failure } = clock;
  const line = `${clock.reason} for ${formatDuration(nowMs - clock.sinceMs)} of ${formatDuration(clock.graceMs)}${restarts(failure)}`;
  const reading = pending(clock.reason, joinParts(line, failure.message));
  return failure.warning ? { ...reading, warning: failure.warning } : reading;
}

function graceOver(clock: ReasonClock): ResourceReading {
  const { failure } = clock;
  const line = `${clock.reason} held for ${formatDuration(clock.graceMs)}, its grace${restarts(failure)}`;
  const reading = failed(clock.reason, joinParts(line, failure.message), failure.held);
  return failure.warning ? { ...reading, warning: failure.warning } : reading;
}

function quiet(reading: ResourceReading, reason: string, silentMs: number): ResourceReading {
  const shown = pending(reason, joinParts(`${reason} not repeated for ${formatDuration(silentMs)}`, reading.message));
  return reading.warning ? { ...shown, warning: reading.warning } : shown;
}

function restarts({ held }: ResourceReading): string {
  const count = held?.restarts;
  return count === undefined ? "" : ` (restarts ${count})`;
}

// Warning events in a reading: the cause a status does not name, shown after what the status says
// (`0/3 replicas ready, 0 updated; ReplicaSet api-7f9c: FailedCreate (x4): pods "api-7f9c-" is
// forbidden: exceeded quota: compute, ...`).
//
// - Only a pending reading shows one: settled is settled, and a failure already has its cause.
// - Never terminal by default, since the cluster retries (a quota raised, a ConfigMap created, a
//   node added); a request's failOn naming the event's reason makes it terminal, at once or once
//   it has kept repeating for its grace (reducer/reasonGrace.ts).
// - Only warnings last seen since the observation began (less a slack) are its news: a FailedCreate
//   from last week's rollout of the same Deployment is not why this one waits.
import type { ClusterWarning } from "../../kube/warnings.js";
import { clean, type ResourceReading } from "./reading.js";
import { shownReason } from "../contract/reasons.js";
import type { ResourceWarning } from "../contract/schemas.js";

/** Event timestamps have whole seconds, and the API server's clock is not this one. */
export const warningSlackMs = 60_000;

/** An admission webhook's message can run to kilobytes; a verdict line should not. */
const maxWarningMessageLength = 512;

/** The newest of the warnings about a resource and what it owns, last seen at or after `sinceMs`. */
export function newestWarning(candidates: Iterable<ClusterWarning | undefined>, sinceMs: number): ClusterWarning | undefined {
  let newest: ClusterWarning | undefined;
  for (const warning of candidates) {
    if (warning === undefined || warning.lastSeenMs < sinceMs) continue;
    if (newest === undefined || warning.lastSeenMs > newest.lastSeenMs) newest = warning;
  }
  return newest;
}

/** The reading with the warning shown, failed by it when failOn names its reason. */
export function withWarning(reading: ResourceReading, warning: ClusterWarning | undefined, failOn: ReadonlySet<string>): ResourceReading {
  if (reading.state !== "pending" || warning === undefined) return reading;
  const shown = resourceWarning(warning);
  if (failOn.has(shown.reason)) {
    const held = { about: `${warning.involved.kind} ${warning.involved.name}`, lastSeenMs: warning.lastSeenMs };
    return { state: "failed", reason: shown.reason, message: reading.message, warning: shown, held };
  }
  return { ...reading, warning: shown };
}

/**
 * Warnings as shown, by the index's warning: a workload is judged again on every event of its pods,
 * and its warning would be scrubbed again each time. Weak: a warning the index forgot is let go.
 */
const shownWarnings = new WeakMap<ClusterWarning, ResourceWarning>();

function resourceWarning(warning: ClusterWarning): ResourceWarning {
  let shown = shownWarnings.get(warning);
  if (shown === undefined) shownWarnings.set(warning, (shown = showWarning(warning)));
  return shown;
}

function showWarning({ involved, reason, message, count, lastSeenMs }: ClusterWarning): ResourceWarning {
  return {
    kind: involved.kind,
    name: involved.name,
    reason: shownReason(reason),
    message: clean(message, maxWarningMessageLength),
    count,
    lastSeen: new Date(lastSeenMs).toISOString(),
  };
}

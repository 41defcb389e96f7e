// The verdict's `message` (SPEC section 6): one line a resource, the stage first, the cluster's own
// reason and message after.
//   deployment payments cannot reach bootstrapped: Job payments/schema-migrate: failed: BackoffLimitExceeded: Job has reached the specified backoff limit
//   deployment payments did not reach healthy within 5m0s: Deployment payments/api: 0/2 replicas ready, 2 updated; pod api-7f9c-x2 container api: ImagePullBackOff
// A timeout names every outstanding resource, one full line each (joined with "\n"), so each line
// stands alone in a CI log and a grep for a resource finds its stage and reading.
import { describeResource } from "../contract/kinds.js";
import { shownMessage, type ResourceReading } from "../rules/reading.js";
import type { ReachedStage, ResourceIdentity, ResourceStage, Stage } from "../contract/schemas.js";
import { formatDuration, listParts, plural } from "../text/text.js";

export function failureLine(deployment: string, stage: Stage, identity: ResourceIdentity, reading: ResourceReading): string {
  return `deployment ${deployment} cannot reach ${stage}: ${describeResource(identity)}: failed: ${reading.reason ?? "Failed"}: ${shownMessage(reading)}`;
}

/** The reading's message alone: its reason is either in it already or says no more than the message. */
export function timeoutLine(deployment: string, stage: Stage, budgetMs: number, identity: ResourceIdentity, reading: ResourceReading): string {
  return `deployment ${deployment} did not reach ${stage} within ${formatDuration(budgetMs)}: ${describeResource(identity)}: ${shownMessage(reading)}`;
}

export interface StageCounts {
  readonly total: number;
  readonly applied: number;
  readonly bootstrapJobs: number;
  readonly settled: number;
}

function existing(total: number): string {
  return `${plural(total, "resource")} ${total === 1 ? "exists" : "exist"}`;
}

/** `verified` has its own (verificationWindow.ts): no resource count says a window held. */
export function successMessage(deployment: string, stage: ResourceStage, counts: StageCounts): string {
  switch (stage) {
    case "applied":
      return `deployment ${deployment} reached applied: ${existing(counts.total)}`;
    case "bootstrapped":
      // "0 bootstrap Jobs complete" would read as if some had not completed.
      return `deployment ${deployment} reached bootstrapped: ${listParts(
        existing(counts.total),
        counts.bootstrapJobs > 0 && `${plural(counts.bootstrapJobs, "bootstrap Job")} complete`,
      )}`;
    case "healthy":
      return `deployment ${deployment} reached healthy: ${plural(counts.total, "resource")} settled`;
  }
}

export function cancelMessage(deployment: string, required: Stage, reached: ReachedStage, reason: string | undefined): string {
  const where = reached === "none" ? "" : ` (reached ${reached})`;
  return `deployment ${deployment} cancelled before reaching ${required}${where}${reason ? `: ${reason}` : ""}`;
}

export function progressMessage(deployment: string, required: Stage, reached: ReachedStage, counts: StageCounts): string {
  const progress =
    reached === "none"
      ? `${counts.applied}/${counts.total} resources applied`
      : `reached ${reached}, ${counts.settled}/${counts.total} resources settled`;
  return `deployment ${deployment} waiting for ${required}: ${progress}`;
}

// `stagewatch list` output: one row per observation in progress, as kubectl lists objects, and the
// same facts as JSON (`-o json`, a `{items: [...]}` list as kubectl's).
import type { InProgressObservation, LeaseState } from "../bus/index.js";
import { expectationOf } from "../verdicts/history.js";
import type { Expectation, ReachedStage, Stage } from "../verdicts/schemas.js";
import { formatDuration } from "../verdicts/text.js";
import { formatTable, usuallyCell } from "./verdictTable.js";

export type InProgressItem = {
  observationId: string;
  deployment: string;
  key: string;
  required: Stage;
  /** What the last stored reading reached (`none` before the first). */
  reached: ReachedStage;
  startedAt: string;
  deadline: string;
  /** How long the required stage usually takes this deployment, when its history has earlier successes. */
  expectation?: Expectation;
  /** The lease holder: the replica driving it, or, when the lease is expired or released, the one that did. */
  owner: { replica: string; lease: LeaseState; leaseExpiresAt: string };
};

export function inProgressItem({ record, lease, leaseState }: InProgressObservation): InProgressItem {
  return {
    observationId: record.observationId,
    deployment: record.request.deployment,
    key: record.request.key,
    required: record.request.require,
    reached: record.verdict?.reached ?? "none",
    startedAt: record.startedAt,
    deadline: record.deadline,
    ...withExpectation(record.verdict?.history, record.request.require),
    owner: { replica: lease.holder, lease: leaseState, leaseExpiresAt: lease.expiresAt },
  };
}

function withExpectation(history: Parameters<typeof expectationOf>[0], stage: Stage): { expectation?: Expectation } {
  const expectation = expectationOf(history, stage);
  return expectation ? { expectation } : {};
}

/** A deadline already passed shows `0s` left: its replica is gone and the adopter will time it out. */
export function inProgressTable(items: readonly InProgressItem[], nowMs: number): string {
  return formatTable(
    ["OBSERVATION", "DEPLOYMENT", "KEY", "REQUIRED", "REACHED", "AGE", "USUALLY", "LEFT", "OWNER"],
    items.map((item) => [
      item.observationId,
      item.deployment,
      item.key,
      item.required,
      item.reached,
      formatDuration(nowMs - Date.parse(item.startedAt)),
      usuallyCell(item.expectation),
      formatDuration(Date.parse(item.deadline) - nowMs),
      item.owner.lease === "held" ? item.owner.replica : `${item.owner.replica} (${item.owner.lease})`,
    ]),
  );
}

// Observations as their records hold them, for the replicas that do not drive them: rebuilding
// the reducer's state for an adoption, and cancelling one whose driver is elsewhere or gone. The
// record is the one authority on the outcome: a terminal outcome is written with a
// compare-and-swap, so of two replicas deciding at once exactly one wins, and the loser answers
// with the winner's verdict.
import type { ObservationRecord, ObservationRecords, StoredRecord } from "../../bus/index.js";
import type { ServiceSigner } from "../../signing/index.js";
import {
  cancelObservation,
  groupKind,
  isTerminal,
  resumeObservation,
  toVerdict,
  type ObservationEvent,
  type AnalysisTemplate,
  type ObservationState,
  type ObservationVerdict,
  type Parsed,
} from "../../verdicts/index.js";

/**
 * The state the record describes. Scopes come from the identities as resolved at acceptance (a
 * cluster-scoped one carries no namespace), so no discovery is needed to rebuild it.
 */
export function stateOfRecord(record: ObservationRecord, analysisTemplates?: ReadonlyMap<string, AnalysisTemplate>): Parsed<ObservationState> {
  const clusterScoped = new Set(record.identities.filter((i) => i.namespace === undefined).map((i) => groupKind(i.apiVersion, i.kind)));
  const startedAtMs = Date.parse(record.startedAt);
  const resumed = resumeObservation({
    observationId: record.observationId,
    request: record.request,
    startedAtMs,
    deadlineMs: Date.parse(record.deadline),
    isClusterScoped: (kind) => clusterScoped.has(kind),
    verdict: record.verdict ?? emptyVerdict(record),
    ...(record.tenant !== undefined && { tenant: record.tenant }),
    ...(record.labelledBootstrap && { labelledBootstrap: record.labelledBootstrap }),
    ...(analysisTemplates && { analysisTemplates }),
  });
  return resumed;
}

/** A record written without a verdict (none are, today): nothing settled yet. */
function emptyVerdict(record: ObservationRecord): ObservationVerdict {
  return {
    observationId: record.observationId,
    key: record.request.key,
    deployment: record.request.deployment,
    required: record.request.require,
    reached: "none",
    outcome: "in_progress",
    resources: [],
    message: "",
    startedAt: record.startedAt,
    deadline: record.deadline,
  };
}

/** The verdict's event, on its tenant's subject when it has one. */
export function verdictEventOf(verdict: ObservationVerdict): ObservationEvent {
  const { observationId, deployment, tenant } = verdict;
  return { type: "verdict", observationId, deployment, ...(tenant !== undefined && { tenant }), at: verdict.decidedAt ?? verdict.startedAt, verdict };
}

export type RecordedCancel = { verdict: ObservationVerdict; decidedHere: boolean };

/**
 * Cancels through the record: the reducer's cancel on the state the record holds, stored with a
 * compare-and-swap. `decidedHere` says this call wrote the terminal outcome (its caller publishes
 * the verdict); otherwise the verdict is whatever another replica decided first.
 */
export async function cancelThroughRecord(
  records: ObservationRecords,
  initial: StoredRecord,
  reason: string | undefined,
  nowMs: number,
  writer: string,
  signer: ServiceSigner,
  analysisTemplates?: ReadonlyMap<string, AnalysisTemplate>,
): Promise<RecordedCancel | undefined> {
  let stored: StoredRecord | undefined = initial;
  // A record changes under us only when its driver writes progress or a verdict: a few rounds settle it.
  for (let round = 0; round < 5 && stored; round++) {
    const { record } = stored;
    if (isTerminal(record.outcome) && record.verdict) return { verdict: record.verdict, decidedHere: false };
    const state = stateOfRecord(record, analysisTemplates);
    if (!state.ok) return undefined;
    const verdict = signer.signVerdict(toVerdict(cancelObservation(state.value, reason, nowMs).state));
    const update = await records.updateRecord({ ...record, outcome: verdict.outcome, verdict, owner: writer }, stored.revision);
    if (update.updated) return { verdict, decidedHere: true };
    stored = update.current;
  }
  return stored?.record.verdict && { verdict: stored.record.verdict, decidedHere: false };
}

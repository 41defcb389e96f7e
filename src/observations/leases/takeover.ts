// What an adopter finds when it reads the record of an observation whose lease it just won, and
// the fencing write that makes it the observation's only driver: the previous driver's next
// compare-and-swap on the record fails, so it can no longer store progress or a verdict.
import type { ObservationRecord, ObservationRecords } from "../../bus/index.js";
import { isTerminal, type AnalysisTemplate, type ObservationState } from "../../verdicts/index.js";
import { stateOfRecord } from "../records/recordedObservations.js";

export type TakeOver =
  /** A lease without a record: its replica crashed during observe, before writing it. */
  | { readonly found: "no record" }
  /** A record whose request key was never claimed: its replica crashed before answering; no client knows of it. */
  | { readonly found: "unclaimed" }
  /** Decided already: only its verdict may still need publishing. */
  | { readonly found: "decided"; readonly record: ObservationRecord }
  /** In progress, now fenced with this replica as owner. */
  | {
      readonly found: "in progress";
      readonly record: ObservationRecord;
      readonly revision: number;
      readonly state: ObservationState;
      /** The owner before this take-over. */
      readonly from: string | undefined;
    };

export class TakeOverError extends Error {
  override readonly name = "TakeOverError";
}

/** Reads the record and, when it is in progress, writes this replica into it as the owner. */
export async function takeOver(records: ObservationRecords, observationId: string, owner: string, analysisTemplates?: ReadonlyMap<string, AnalysisTemplate>): Promise<TakeOver> {
  let stored = await records.getRecord(observationId);
  // The previous driver may write progress between our read and our fencing write: a few rounds settle it.
  for (let round = 0; round < 5; round++) {
    if (stored === undefined) return { found: "no record" };
    const { record } = stored;
    if (isTerminal(record.outcome)) return { found: "decided", record };
    const claim = await records.getClaim(record.request.key, record.tenant);
    if (claim?.observationId !== observationId) return { found: "unclaimed" };
    const state = stateOfRecord(record, analysisTemplates);
    if (!state.ok) throw new TakeOverError(`record of observation ${observationId} does not resume: ${state.issues.map((i) => i.message).join("; ")}`);
    const fenced: ObservationRecord = { ...record, owner, adoptions: (record.adoptions ?? 0) + 1 };
    const update = await records.updateRecord(fenced, stored.revision);
    if (update.updated) return { found: "in progress", record: fenced, revision: update.revision, state: state.value, from: record.owner };
    stored = update.current;
  }
  throw new TakeOverError(`record of observation ${observationId} kept changing during adoption`);
}

// Accepting an observation durably: lease, then record, then the request key's claim, once the
// record is known to fit the NATS server's max_payload whatever its readings add (`too_large`). Every
// record in progress has a lease, so the lease bucket is the index of unfinished work; a claim
// never points at a missing record. The replica that loses a race on the same key removes its
// record and lease and answers with the winner's; a crash between the steps leaves a lease whose
// record is missing or unclaimed, which the next adopter removes (no client was ever told of it).
import type { ObservationRecord, ObservationRecords, ObserveResult, StoredRecord } from "../../bus/index.js";
import type { ServiceSigner } from "../../signing/index.js";
import { toVerdict, type ObservationRequest, type ObservationState } from "../../verdicts/index.js";
import type { LeaseKeeper } from "./leaseKeeper.js";
import { worstCaseRecordBytes } from "../records/recordCompaction.js";

export type Acceptance = { accepted: true; stored: StoredRecord } | { accepted: false; result: ObserveResult };

export async function acceptObservation(
  records: ObservationRecords,
  leases: LeaseKeeper,
  signer: ServiceSigner,
  request: ObservationRequest,
  contentHash: string,
  state: ObservationState,
  maxRecordBytes: number,
): Promise<Acceptance> {
  const { observationId, tenant } = state;
  const record: ObservationRecord = {
    observationId,
    ...(tenant !== undefined && { tenant }),
    contentHash,
    request,
    identities: [...state.resources.values()].map((r) => r.identity),
    startedAt: new Date(state.startedAtMs).toISOString(),
    deadline: new Date(state.deadlineMs).toISOString(),
    outcome: "in_progress",
    // Another replica answers `get` from the record: it needs a verdict before any stage is reached.
    verdict: signer.signVerdict(toVerdict(state)),
    owner: leases.replicaId,
    adoptions: 0,
  };
  const worstCase = worstCaseRecordBytes(record);
  if (worstCase > maxRecordBytes) {
    const message = `the observation's record could grow to ${worstCase} bytes, over the ${maxRecordBytes} the NATS server's max_payload leaves for it; declare fewer resources or observe them in several requests`;
    return { accepted: false, result: { ok: false, code: "too_large", message, issues: [{ path: "resources", message }] } };
  }
  await leases.create(observationId, tenant);
  let revision: number;
  let claim: Awaited<ReturnType<ObservationRecords["claimKey"]>>;
  try {
    revision = await records.putRecord(record);
    claim = await records.claimKey(request.key, contentHash, observationId, tenant);
  } catch (error) {
    await leases.remove(observationId);
    throw error;
  }
  if (claim.claimed) return { accepted: true, stored: { record, revision } };
  await records.deleteRecord(observationId);
  await leases.remove(observationId);
  if (claim.contentHash === contentHash) return { accepted: false, result: { ok: true, observationId: claim.observationId, replay: true } };
  // The other observation's id is not named: with it, whoever guessed a key (CI keys are
  // predictable) could get, follow or cancel an observation that is not theirs.
  return {
    accepted: false,
    result: { ok: false, code: "conflict", message: `key '${request.key}' already names another observation, with other content` },
  };
}

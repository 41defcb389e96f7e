import { describe, expect, it } from "vitest";
import { succeededVerdict } from "../../../test/fixtures/verdicts.js";
import type { ObservationRecord } from "../../bus/index.js";
import { attestationEnvelope, checkAttestation, serviceSigner } from "../../signing/index.js";
import { newKey } from "../../signing/testing/keys.js";
import { fitRecord, jsonBytes } from "./recordCompaction.js";

describe("fitRecord and a verdict's attestation", () => {
  // A compacted verdict states less (its message cut, which the predicate carries): its attestation
  // must be of what is stored, or the envelope a reader rebuilds from it would never verify.
  it("attests the compacted verdict again, so the stored verdict's envelope verifies", () => {
    const signer = serviceSigner(newKey, [], "prod-eu-1");
    const verdict = signer.signVerdict({ ...succeededVerdict, message: `${succeededVerdict.message}; ${"3 resources settled; ".repeat(1500)}` });
    const record = {
      observationId: verdict.observationId,
      contentHash: "hash",
      request: { key: verdict.key, deployment: verdict.deployment, require: "healthy", timeoutSeconds: 300, resources: [] },
      identities: verdict.resources.map((resource) => resource.identity),
      startedAt: verdict.startedAt,
      deadline: verdict.deadline,
      outcome: verdict.outcome,
      verdict,
    } as unknown as ObservationRecord;
    const maxBytes = jsonBytes(record) - 1024;

    const fitted = fitRecord(record, maxBytes, signer.signVerdict);
    expect(jsonBytes(fitted)).toBeLessThanOrEqual(maxBytes);
    expect(fitted.verdict!.attestation?.sig).not.toBe(verdict.attestation?.sig);
    const envelope = attestationEnvelope(fitted.verdict!);
    if (typeof envelope === "string") throw new Error(`no envelope: ${envelope}`);
    expect(checkAttestation(envelope, [newKey.verifyKey])).toMatchObject({ trusted: true, statement: { predicate: { cluster: { name: "prod-eu-1" } } } });
    expect(signer.trustsVerdict(fitted.verdict, verdict.observationId).trusted).toBe(true);
  });
});

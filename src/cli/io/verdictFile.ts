// What `observe --verdict-file` keeps as the CI job's evidence: the verdict's in-toto attestation,
// a DSSE envelope that standard supply-chain tools verify with the service's PEM key (cosign
// verify-blob-attestation, in-toto, go-securesystemslib), when the service attested the verdict;
// else the verdict as the service signed it, which only `stagewatch verify` reads. Either way
// `stagewatch verify FILE` checks it. The envelope is assembled here from the verdict and the
// signature it carries (src/signing/attestation.ts), and checked against the key that signed the
// verdict before it is written: an envelope this version builds differently from the service's
// would be evidence that never verifies, so the verdict is kept instead, with a note saying why.
import { writeFile } from "node:fs/promises";
import { attestationEnvelope, checkAttestation, statementOf } from "../../signing/attestation.js";
import { verifyKeyOf } from "../../signing/keys.js";
import type { DsseEnvelope } from "../../verdicts/contract/attestation.js";
import type { ObservationVerdict } from "../../verdicts/contract/schemas.js";
import { UsageError } from "./usage.js";

export type VerdictEvidence = { form: "attestation"; body: DsseEnvelope } | { form: "verdict"; body: ObservationVerdict; why: string };

/** The evidence a decided verdict gives: its attestation's envelope, or the signed verdict and why not the envelope. */
export function verdictEvidence(verdict: ObservationVerdict): VerdictEvidence {
  const envelope = attestationEnvelope(verdict);
  if (envelope === "unattested") {
    const why =
      statementOf(verdict, undefined) === "no image digest"
        ? "no settled workload reports an image digest, and an in-toto Statement needs at least one subject"
        : "the verdict carries no attestation (a service without a signing key, local mode, or a service older than attestations)";
    return { form: "verdict", body: verdict, why };
  }
  if (typeof envelope === "string") return { form: "verdict", body: verdict, why: "the verdict is not decided" };
  const signer = verdict.signature?.key;
  if (signer === undefined || !checkAttestation(envelope, [verifyKeyOf(signer)]).trusted) {
    return { form: "verdict", body: verdict, why: "its attestation does not verify as this version of stagewatch assembles it (a service of another version?)" };
  }
  return { form: "attestation", body: envelope };
}

/** Writes the evidence of `verdict` to `path`; the line to print when it is not the attestation. */
export async function writeVerdictFile(path: string, verdict: ObservationVerdict): Promise<string | undefined> {
  const evidence = verdictEvidence(verdict);
  try {
    await writeFile(path, `${JSON.stringify(evidence.body, null, 2)}\n`);
  } catch (cause) {
    throw new UsageError(`--verdict-file: cannot write ${path}: ${(cause as Error).message}`, { cause });
  }
  return evidence.form === "verdict" ? `stagewatch: --verdict-file: wrote the signed verdict, not an in-toto attestation: ${evidence.why}\n` : undefined;
}

// A decided verdict as an in-toto attestation: the Statement it determines, the service's DSSE
// signature of that Statement (carried in the verdict's `attestation` member, which the verdict's
// own signature covers), and the envelope a reader assembles from the two.
//
// The Statement is a pure function of the verdict and its bytes are its canonical JSON (RFC 8785),
// so every reader that holds the verdict rebuilds the very bytes the service signed: records and
// events carry a signature, not a second copy of the verdict in base64. A reader whose rebuilt
// envelope does not verify (a service of another version building another Statement) learns it
// from the envelope's own check and keeps the verdict instead.
import {
  inTotoPayloadType,
  inTotoStatementType,
  verdictPredicateType,
  VerdictStatement,
  type DsseEnvelope,
  type StatementSubject,
  type VerdictPredicate,
} from "../verdicts/contract/attestation.js";
import type { ClusterName, ObservationVerdict } from "../verdicts/contract/schemas.js";
import { canonicalJson } from "./canonicalForm.js";
import { dsseEnvelope, dsseSignature, verifyEnvelope } from "./dsse.js";
import type { SigningKey, VerifyKey } from "./keys.js";

// An imageID as kubelets write it: `registry/app@sha256:<hex>`, behind a runtime's scheme on older
// Docker nodes (`docker-pullable://`). A bare `sha256:<hex>` (an image loaded onto the node, never
// pulled) is the image's config digest, which no registry serves under a name: it cannot be a
// subject, though the predicate's resource still lists it.
const imageIdPattern = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([^@\s]+)@(sha256|sha384|sha512):([0-9a-f]+)$/;
const hexLength: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

/** The subject an imageID names, or undefined when it names no pullable digest. */
export function subjectOfImage(imageId: string): StatementSubject | undefined {
  const match = imageIdPattern.exec(imageId);
  if (!match) return undefined;
  const [, name, algorithm, hex] = match as unknown as [string, string, string, string];
  if (hex.length !== hexLength[algorithm]) return undefined;
  return { name, digest: { [algorithm]: hex } };
}

/** The images the settled workloads run, by digest: distinct, sorted. */
export function subjectsOf(verdict: ObservationVerdict): StatementSubject[] {
  const subjects = new Map<string, StatementSubject>();
  for (const resource of verdict.resources) {
    if (resource.state !== "settled") continue;
    for (const image of resource.images ?? []) {
      const subject = subjectOfImage(image);
      if (subject) subjects.set(`${subject.name}@${Object.entries(subject.digest).flat().join(":")}`, subject);
    }
  }
  return [...subjects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, subject]) => subject);
}

function predicateOf(verdict: ObservationVerdict, decidedAt: string, cluster: ClusterName | undefined): VerdictPredicate {
  const { failure } = verdict;
  return {
    observationId: verdict.observationId,
    key: verdict.key,
    deployment: verdict.deployment,
    ...(verdict.tenant !== undefined && { tenant: verdict.tenant }),
    ...(cluster !== undefined && { cluster: { name: cluster } }),
    required: verdict.required,
    reached: verdict.reached,
    outcome: verdict.outcome,
    message: verdict.message,
    startedAt: verdict.startedAt,
    deadline: verdict.deadline,
    decidedAt,
    ...(failure && { failure: { stage: failure.stage, resource: failure.resource, reason: failure.reason } }),
    resources: verdict.resources.map(({ identity, state, reason, images }) => ({
      identity,
      state,
      ...(reason !== undefined && { reason }),
      ...(images !== undefined && { images }),
    })),
    ...(verdict.verification !== undefined && { verification: verdict.verification }),
  };
}

/** Why a verdict has no attestation, for the reader that wanted one. */
export type Unattested = "undecided" | "no image digest";

/** The Statement a decided verdict determines; why there is none otherwise. */
export function statementOf(verdict: ObservationVerdict, cluster: ClusterName | undefined): VerdictStatement | Unattested {
  if (verdict.outcome === "in_progress" || verdict.decidedAt === undefined) return "undecided";
  const subject = subjectsOf(verdict);
  if (subject.length === 0) return "no image digest";
  return { _type: inTotoStatementType, subject, predicateType: verdictPredicateType, predicate: predicateOf(verdict, verdict.decidedAt, cluster) };
}

const statementBytes = (statement: VerdictStatement) => Buffer.from(canonicalJson(statement), "utf8");

/**
 * `verdict` with the attestation `key` makes of it (any earlier one replaced, since a compacted
 * verdict states less), or without one when it determines no Statement. Sign the verdict after.
 */
export function attestVerdict(verdict: ObservationVerdict, key: SigningKey, cluster: ClusterName | undefined): ObservationVerdict {
  const { attestation: _, ...unattested } = verdict;
  const statement = statementOf(unattested, cluster);
  if (typeof statement === "string") return unattested;
  return { ...unattested, attestation: { ...(cluster !== undefined && { cluster }), sig: dsseSignature(inTotoPayloadType, statementBytes(statement), key) } };
}

/** The DSSE envelope of a verdict's attestation, as standard tools read it; why there is none otherwise. */
export function attestationEnvelope(verdict: ObservationVerdict): DsseEnvelope | Unattested | "unattested" {
  if (verdict.attestation === undefined) return "unattested";
  const statement = statementOf(verdict, verdict.attestation.cluster);
  if (typeof statement === "string") return statement;
  return dsseEnvelope(inTotoPayloadType, statementBytes(statement), verdict.attestation.sig);
}

export type AttestationCheck =
  | { trusted: true; key: string; statement: VerdictStatement }
  | { trusted: false; problem: "malformed" | "bad signature" | "other payload"; message: string };

/** Whether `envelope` is a stagewatch verdict attestation signed by one of `keys`; then its Statement. */
export function checkAttestation(envelope: unknown, keys: readonly VerifyKey[]): AttestationCheck {
  const verification = verifyEnvelope(envelope, keys);
  if (!verification.valid) return { trusted: false, problem: verification.problem, message: verification.message };
  if (verification.payloadType !== inTotoPayloadType) {
    return { trusted: false, problem: "other payload", message: `payloadType ${JSON.stringify(verification.payloadType)}, not ${inTotoPayloadType}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(verification.payload.toString("utf8"));
  } catch {
    return { trusted: false, problem: "other payload", message: "a payload that is not JSON" };
  }
  const statement = VerdictStatement.safeParse(json);
  if (!statement.success) {
    const issue = statement.error.issues[0];
    return { trusted: false, problem: "other payload", message: `not a stagewatch verdict Statement: ${issue?.path.join(".") || "(body)"}: ${issue?.message}` };
  }
  return { trusted: true, key: verification.key, statement: statement.data };
}

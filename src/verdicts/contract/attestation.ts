// The verdict as an in-toto attestation (issue 36, section 2): what supply-chain tools (cosign,
// in-toto, Kyverno's attestation checks, GUAC) read, beside the service's own signed form. A DSSE
// envelope (github.com/secure-systems-lab/dsse, envelope.md) whose payload is an in-toto Statement
// v1 (github.com/in-toto/attestation, spec/v1/statement.md): the subjects are the images the
// settled workloads run, by digest; the predicate, of stagewatch's own type, is the verdict.
// Read leniently (unknown members pass): a Statement is written by the service and read by anyone.
import { z } from "zod";
import { ClusterName, Outcome, ReachedStage, ResourceIdentity, ResourceState, Stage, Verification } from "./schemas.js";

/** The Statement layer's `_type` (in-toto Statement v1). */
export const inTotoStatementType = "https://in-toto.io/Statement/v1";
/** DSSE's payloadType for an in-toto Statement. */
export const inTotoPayloadType = "application/vnd.in-toto+json";
/** The predicate's type: a stagewatch verdict, version 1 (schema/json/VerdictPredicate.json). */
export const verdictPredicateType = "https://stagewatch.io/attestations/verdict/v1";

/** A digest as in-toto's ResourceDescriptor holds one: algorithm -> lowercase hex. */
const hexDigest = z.string().regex(/^[0-9a-f]+$/, "must be lowercase hex");

/** One image a settled workload runs: its repository (`registry/app`) and its digest. */
export const StatementSubject = z.object({
  name: z.string().min(1),
  digest: z.record(z.string(), hexDigest),
});
export type StatementSubject = z.infer<typeof StatementSubject>;

/** A declared resource as the predicate states it: identity (with the generation asked for), state, the cluster's reason, the image digests it runs. */
export const PredicateResource = z.object({
  identity: ResourceIdentity,
  state: ResourceState,
  reason: z.string().optional(),
  images: z.array(z.string()).optional(),
});
export type PredicateResource = z.infer<typeof PredicateResource>;

export const VerdictPredicate = z.object({
  observationId: z.string(),
  key: z.string(),
  deployment: z.string(),
  /** The tenant (NATS account) that asked, with a tenants file. */
  tenant: z.string().optional(),
  /** The cluster observed, as the operator named it (`serve --cluster-name`). */
  cluster: z.object({ name: ClusterName }).optional(),
  required: Stage,
  reached: ReachedStage,
  outcome: Outcome,
  message: z.string(),
  startedAt: z.string(),
  deadline: z.string(),
  decidedAt: z.string(),
  failure: z.object({ stage: Stage, resource: ResourceIdentity, reason: z.string() }).optional(),
  resources: z.array(PredicateResource),
  /**
   * The `verified` stage's soak window (its length, start, end and the pods it read), when the
   * request required that stage; whether it held is `reached` and `failure` above.
   */
  verification: Verification.optional(),
});
export type VerdictPredicate = z.infer<typeof VerdictPredicate>;

export const VerdictStatement = z.object({
  _type: z.literal(inTotoStatementType),
  subject: z.array(StatementSubject).min(1, "an in-toto Statement v1 names at least one subject"),
  predicateType: z.literal(verdictPredicateType),
  predicate: VerdictPredicate,
});
export type VerdictStatement = z.infer<typeof VerdictStatement>;

/** A DSSE envelope: `payload` and `sig` standard base64 (DSSE readers also take URL-safe). */
export const DsseEnvelope = z.object({
  payloadType: z.string().min(1),
  payload: z.string(),
  signatures: z.array(z.object({ keyid: z.string().optional(), sig: z.string().min(1) })).min(1, "a DSSE envelope holds at least one signature"),
});
export type DsseEnvelope = z.infer<typeof DsseEnvelope>;

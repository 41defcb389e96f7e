// JSON Schemas (draft-07) of every body stagewatch sends or accepts on NATS, generated from the zod
// schemas the service itself validates with (src/verdicts/contract/schemas.ts), so a client in Go, Python or
// Java generates its types from the contract the code enforces, not from SPEC prose.
//
// Draft-07 because it is what AsyncAPI 3's own schema format extends (the same schemas are embedded
// in schema/asyncapi.yaml) and what most code generators read.
import { z } from "zod";
import * as attestation from "../../src/verdicts/contract/attestation.ts";
import * as wire from "../../src/verdicts/contract/schemas.ts";

/** Every named body and the shared parts a generator should turn into types of their own. */
export const contractSchemas = {
  Stage: { schema: wire.Stage, description: "A stage of a deployment: applied < bootstrapped < healthy (cumulative)." },
  ReachedStage: { schema: wire.ReachedStage, description: "The highest stage reached; `none` until every declared resource was seen." },
  Outcome: { schema: wire.Outcome, description: "`timed_out` is the budget running out: a failure, never a success. A terminal outcome never changes." },
  ResourceState: { schema: wire.ResourceState, description: "A declared resource's state: settled once it reached what the required stage needs of it." },
  ResourceIdentity: {
    schema: wire.ResourceIdentity,
    description:
      "A resource by identity only, never its content. `generation`: the metadata.generation the apply produced; status older than it is not read. Names are DNS subdomains, except RBAC objects (path segments); `bootstrap` only on a Job.",
  },
  ResourceVerdict: { schema: wire.ResourceVerdict, description: "One declared resource's state with the cluster's own reason and message." },
  LogTail: {
    schema: wire.LogTail,
    description:
      "The failing container's last log lines (oldest first, credentials scrubbed), read once when the verdict was decided for a request with `logs`; `previous` when it is the restarted container's previous instance, `truncated` when older lines or the end of a long line were cut.",
  },
  Failure: {
    schema: wire.Failure,
    description:
      "The resource that stopped the observation, the first stage it blocks, the cluster's reason and message; with `logs` requested, the failing container's `logTail`, or a `logNote` saying why there is none.",
  },
  Signature: {
    schema: wire.Signature,
    description: [
      "The service's Ed25519 signature of the object it is the `signature` member of (a verdict, or an event), present when the service runs with a signing key.",
      "`key`: the nkeys server public key that signed (`N` and 55 base32 characters; decode it with an nkeys library, e.g. Go's nkeys.FromPublicKey). `sig`: the 64-byte signature, base64url without padding.",
      "Signed bytes: the UTF-8 of the object's canonical JSON without its own top-level `signature` member (nested ones, such as the verdict's inside a verdict event, stay and are covered): RFC 8785 (JSON Canonicalization Scheme), that is members sorted by key in UTF-16 code units at every level, no white space, strings escaped as ECMAScript's JSON.stringify does, and numbers as the service wrote them (keep each number's text as received).",
      "Believe a verdict only if it verifies with a key you were given (STAGEWATCH_VERIFY_KEY; several during a rotation) and its `observationId` (and, for your own request, its `key`) is the one you asked about; for a verdict event, check the event's signature and the verdict's. Anything else on the subject is someone else's: ignore it.",
    ].join(" "),
  },
  VerdictAttestation: {
    schema: wire.VerdictAttestation,
    description: [
      "A decided verdict's in-toto attestation, present when the service signs and a settled workload runs an image by digest.",
      "`sig`: the service's Ed25519 signature, standard base64, over DSSE's pre-authentication encoding (`DSSEv1 <len> application/vnd.in-toto+json <len> <statement>`) of the VerdictStatement the verdict determines, serialised as canonical JSON (RFC 8785).",
      "`cluster`: the cluster's name the statement states (`serve --cluster-name`).",
      "A reader rebuilds the statement from the verdict and wraps it in a DSSE envelope (`stagewatch observe --verdict-file` writes one; docs/user/verifying.md).",
    ].join(" "),
  },
  ObservationVerdict: { schema: wire.ObservationVerdict, description: "The current or final state of one observation (`get`, `cancel`, the `verdict` event)." },
  VerdictPredicate: {
    schema: attestation.VerdictPredicate,
    description: `The predicate of predicateType ${attestation.verdictPredicateType}: a decided stagewatch verdict as an in-toto attestation states it (stage required and reached, outcome, decision time, each declared resource with the generation asked for, its state and the image digests it runs, the cluster's name, and the checks of the verified stage when one was required).`,
  },
  VerdictStatement: {
    schema: attestation.VerdictStatement,
    description: `The in-toto Statement v1 of a decided verdict (payloadType ${attestation.inTotoPayloadType} in a DSSE envelope): its subjects are the images the settled workloads run, by digest (from containerStatuses[].imageID; an image without a repository digest is no subject, and a verdict with none has no attestation); its predicate a VerdictPredicate.`,
  },
  DsseEnvelope: {
    schema: attestation.DsseEnvelope,
    description: "A DSSE envelope (github.com/secure-systems-lab/dsse): `payload` the VerdictStatement's bytes in base64, each signature's `sig` an Ed25519 signature in base64 over PAE(payloadType, payload); `keyid` empty. What `stagewatch observe --verdict-file` writes; cosign, in-toto and go-securesystemslib verify it with the service's PEM public key (`stagewatch keys pem`).",
  },
  ObservationRequest: {
    schema: wire.ObservationRequest,
    description:
      "What an apply tool sends on `<prefix>.observe`. Give `timeoutSeconds` or `deadline` (the earlier wins). `key` is an idempotency key: the same key and content is a replay, other content a `conflict`. At most 1 MiB.",
  },
  FieldIssue: { schema: wire.FieldIssue, description: "One field a request got wrong: its dotted path and what is wrong with it." },
  ErrorReply: { schema: wire.ErrorReply, description: "Any request refused: a stable code, a sentence, and the fields at fault." },
  ObserveReply: { schema: wire.ObserveReply, description: "The reply on `<prefix>.observe`: the observation accepted (`replay` when the key was seen with the same content), or an error." },
  CancelRequest: { schema: wire.CancelRequest, description: "What `<prefix>.cancel` accepts." },
  CancelReply: { schema: wire.CancelReply, description: "The reply on `<prefix>.cancel`: the observation's verdict after the cancel, or an error (`not_found`)." },
  GetRequest: { schema: wire.GetRequest, description: "What `<prefix>.get` accepts." },
  GetReply: { schema: wire.GetReply, description: "The reply on `<prefix>.get`: the observation's current verdict, or an error (`not_found`)." },
  KeysReply: {
    schema: wire.KeysReply,
    description:
      "The reply on `<prefix>.keys` (an empty request): the public keys the service's verdicts verify with, the signing key's first, then those it still trusts during a rotation; none when it signs nothing. Unsigned: a key learned here is worth who else could have answered. In the account layout of deploy/nats/accounts.conf only the service can (a team's members may neither subscribe to `<prefix>.keys` nor publish to an inbox, which a client can confirm by asking the NATS server: both are refused on its connection); on a single account anyone with its credentials can, and a key learned there proves only that whoever answered also signed. A key given to the client (STAGEWATCH_VERIFY_KEY) needs no such question.",
  },
  ListRequest: { schema: wire.ListRequest, description: "What `<prefix>.list` accepts: optionally one deployment's observations only." },
  InProgressItem: { schema: wire.InProgressItem, description: "One observation in progress: what was asked, how far it got, its budget and the replica holding its lease." },
  ListReply: {
    schema: wire.ListReply,
    description: "The reply on `<prefix>.list`: the observations in progress the caller may see (its tenant's; every one to an admin or without a tenants file), oldest first, and the records the service could not read (shown to an admin only).",
  },
  ProgressEvent: { schema: wire.ProgressEvent, description: "A declared resource's state or reason changed, or its workload was scaled (its message then starts `scaled 2 -> 5`)." },
  StageEvent: { schema: wire.StageEvent, description: "The observation reached a stage." },
  StalledEvent: { schema: wire.StalledEvent, description: "A notice, never a failure: no resource changed state, reason or reading for `sinceSeconds`; names what the observation waits on." },
  VerdictEvent: { schema: wire.VerdictEvent, description: "The decided verdict: exactly one per observation, the last event of its subject." },
  ObservationEvent: {
    schema: wire.ObservationEvent,
    description: "Any event on `<prefix>.events.<deployment>.<observationId>` (with a tenants file `<prefix>.events.<tenant>.<deployment>.<observationId>`, and `tenant` set), tagged by `type`.",
  },
  ObservingLine: { schema: wire.ObservingLine, description: "The first line of `stagewatch observe --progress json`: the observation it follows, who decides it (`mode`) and whether the key was a replay." },
  NoticeLine: {
    schema: wire.NoticeLine,
    description: "A sentence of `stagewatch observe` itself under `--progress json` (a verification notice, a warning of local mode's engine, the error that ended it), as the other progress modes print it without the `stagewatch: ` prefix.",
  },
  ProgressLine: {
    schema: wire.ProgressLine,
    description:
      "One line of `stagewatch observe --progress json` on stderr, tagged by `type`: the observation's events as the service publishes them (`progress`, `stage`, `stalled`, and the `verdict` event last), `observing` first and `notice` lines of observe's own. Exit codes are those of the other progress modes.",
  },
} as const;

export type ContractSchemaName = keyof typeof contractSchemas;
export type JsonSchema = Record<string, unknown>;

/**
 * The schemas by name, each referring to the others through `uri(name)`. Generated for the input
 * side (what a sender may leave out: `failOn` and `absentGraceSeconds` have defaults), which for
 * every body but the request is the same as what is sent. Replies and events are not closed
 * (`additionalProperties` unset) so a client keeps working when a newer service adds a field;
 * requests are, as the service refuses unknown fields.
 */
export function jsonSchemas(uri: (name: ContractSchemaName) => string): Record<ContractSchemaName, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, { schema }] of Object.entries(contractSchemas)) registry.add(schema, { id: name });
  const generated = z.toJSONSchema(registry, { target: "draft-07", io: "input", uri: (id) => uri(id as ContractSchemaName) }).schemas;
  const result = {} as Record<ContractSchemaName, JsonSchema>;
  for (const name of Object.keys(contractSchemas) as ContractSchemaName[]) {
    const { $schema, $id, ...body } = generated[name] as JsonSchema;
    result[name] = { $schema, $id, title: name, description: contractSchemas[name].description, ...body };
  }
  // `require` is checked by a refinement (so `rendered` gets its own message), which JSON Schema
  // cannot carry: the contract states the values it accepts.
  const request = result.ObservationRequest as { properties: Record<string, JsonSchema> };
  request.properties["require"] = { $ref: uri("Stage") };
  return result;
}

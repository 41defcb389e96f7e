// `stagewatch verify FILE`: checks a verdict kept as evidence, offline, with nothing but the file
// and the service's public key. It accepts both forms `observe --verdict-file` writes: the in-toto
// attestation (a DSSE envelope, checked over its payload's bytes), the default since attestations
// came, and the signed verdict (checked over its canonical form, so the file may have been
// pretty-printed, reordered or copied anywhere), which the files kept before, and verdicts with no
// image digest to attest, still are; also `observe --json` output and a verdict event.
//
// A valid signature says only that the service wrote the body: any verdict it ever signed is
// valid, another team's, a failed one, last month's. So the verdict must also be the one the job
// asked about (--key, --deployment, --tenant), with the outcome it needs (--outcome, `succeeded`
// unless told otherwise: the usual question is "may this release go on?") and recent enough
// (--max-age, against the signed `decidedAt`). One team once minted a genuinely signed
// `succeeded` for another team's predictable next CI key; --tenant is what refuses it.
// Exit codes: 0 valid and matching, 1 invalid or not matching, 2 bad input.
import { readFileSync } from "node:fs";
import type { VerifyKey } from "../../signing/keys.js";
import { checkAttestation } from "../../signing/attestation.js";
import { checkEvent, checkVerdict, type Trust } from "../../signing/trust.js";
import type { VerdictPredicate } from "../../verdicts/contract/attestation.js";
import { ObservationVerdict, Outcome, VerdictEvent } from "../../verdicts/contract/schemas.js";
import { describeIssues, parseWith } from "../../verdicts/contract/validation.js";
import { parseCommandArgsWithOperands } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { durationFlagSeconds } from "../inputs/duration.js";
import { exitCodes, UsageError } from "../io/usage.js";
import { resolveVerifyKeys, verifyKeyOption } from "./verification.js";

export const verifyUsage = `Usage: stagewatch verify FILE [--verify-key KEY]... [--outcome OUTCOME] [--key KEY]
                        [--deployment NAME] [--tenant TENANT] [--max-age DURATION]

Checks that a verdict was signed by the stagewatch service, not changed since, and about what you
expect: a file written by 'stagewatch observe --verdict-file' (the verdict's in-toto attestation, a
DSSE envelope, or the signed verdict itself), 'observe --json' output, or a verdict event from the
stream.

  FILE                    the verdict ('-': standard input)
  --verify-key KEY        the service's public key (N...; repeatable, or comma separated, for a
                          rotation's overlap; default: $STAGEWATCH_VERIFY_KEY)
  --outcome OUTCOME       the outcome it must carry: succeeded (default), failed, timed_out,
                          cancelled, in_progress, or any
  --key KEY               the idempotency key it must be for (the --key the job gave observe)
  --deployment NAME       the deployment it must be for
  --tenant TENANT         the tenant (NATS account) that must have asked; a verdict of a service
                          without a tenants file names none, and does not match
  --max-age DURATION      decided at most this long ago (its signed decidedAt), e.g. 30m, 1h
  -h, --help

Prints what it checked: the observation, deployment, key, tenant, namespaces, outcome, decision
time, signing key and, for an attestation, its subjects (the images by digest); then, for each given binding the verdict does not meet, a line saying which.
Exit codes: 0 valid and every given binding met, 1 invalid (unsigned, changed, signed by another
key) or a binding not met, 2 bad input (no such file, not JSON, not a verdict, no key given).
`;

const anyOutcome = "any";

/** What the verdict must be about; each given field must match. */
export interface Bindings {
  readonly outcome: Outcome | typeof anyOutcome;
  readonly key?: string | undefined;
  readonly deployment?: string | undefined;
  readonly tenant?: string | undefined;
  readonly maxAgeSeconds?: number | undefined;
}

export async function verifyCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgsWithOperands(argv, {
    ...verifyKeyOption,
    outcome: { type: "string", default: "succeeded" },
    key: { type: "string" },
    deployment: { type: "string" },
    tenant: { type: "string" },
    "max-age": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout.write(verifyUsage);
    return exitCodes.reached;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one FILE, got ${positionals.length}`);
  const path = positionals[0]!;
  if (values.key !== undefined && publicKeyShape.test(values.key)) {
    // --key named the public key until the bindings came; a key of that shape is someone's old script.
    throw new UsageError("--key is the verdict's idempotency key; give the service's public key with --verify-key");
  }
  const bindings: Bindings = {
    outcome: outcomeFlag(values.outcome),
    key: values.key,
    deployment: values.deployment,
    tenant: values.tenant,
    maxAgeSeconds: values["max-age"] === undefined ? undefined : durationFlagSeconds("--max-age", values["max-age"]),
  };
  const keys = resolveVerifyKeys(values["verify-key"], io.env);
  if (keys.length === 0) throw new UsageError("no key to verify with: give --verify-key or STAGEWATCH_VERIFY_KEY");
  const checked = check(await readJson(path, io), keys);
  if (!checked.trusted) {
    io.stdout.write(`invalid: ${checked.message}\n`);
    return exitCodes.failed;
  }
  const { verdict, key, subjects } = checked;
  const unmet = unmetBindings(verdict, bindings, Date.now());
  const attested = subjects === undefined ? "" : `, in-toto attestation of ${subjects.join(", ")}`;
  io.stdout.write(`${unmet.length === 0 ? "valid" : "mismatch"}: ${vouchedFor(verdict)} (signed by ${key}${attested})\n`);
  for (const line of unmet) io.stdout.write(`  ${line}\n`);
  return unmet.length === 0 ? exitCodes.reached : exitCodes.failed;
}

const publicKeyShape = /^N[A-Z2-7]{55}$/;

function outcomeFlag(value: string): Bindings["outcome"] {
  if (value === anyOutcome) return anyOutcome;
  const parsed = Outcome.safeParse(value);
  if (!parsed.success) throw new UsageError(`--outcome: must be one of ${[...Outcome.options, anyOutcome].join(", ")}`);
  return parsed.data;
}

/** What a signature vouches for and the bindings read: the fields a verdict and its attestation's predicate share. */
type Vouched = Pick<VerdictPredicate, "observationId" | "key" | "deployment" | "tenant" | "outcome"> & {
  readonly decidedAt?: string | undefined;
  readonly resources: readonly { readonly identity: { readonly namespace?: string | undefined } }[];
};

/** The namespaces the verdict's resources resolved to (the service applied defaultNamespace), sorted. */
function namespacesOf(verdict: Vouched): string[] {
  return [...new Set(verdict.resources.flatMap((resource) => (resource.identity.namespace === undefined ? [] : [resource.identity.namespace])))].sort();
}

/** One line: everything a binding could be checked against, so a person sees what the signature vouches for. */
function vouchedFor(verdict: Vouched): string {
  const namespaces = namespacesOf(verdict);
  const about = [
    `observation ${verdict.observationId}`,
    `deployment ${verdict.deployment}`,
    `key ${verdict.key}`,
    `tenant ${verdict.tenant ?? "(none)"}`,
    `namespaces ${namespaces.length === 0 ? "(none)" : namespaces.join(",")}`,
  ];
  return `${about.join(", ")}: ${verdict.outcome}, ${verdict.decidedAt === undefined ? "not decided" : `decided at ${verdict.decidedAt}`}`;
}

/** A line for each given binding the verdict does not meet; none: it vouches for what was asked. */
export function unmetBindings(verdict: Vouched, bindings: Bindings, nowMs: number): string[] {
  const unmet: string[] = [];
  const compare = (name: string, actual: string | undefined, expected: string | undefined) => {
    if (expected !== undefined && actual !== expected) unmet.push(`${name}: ${actual === undefined ? "none" : JSON.stringify(actual)}, not ${JSON.stringify(expected)}`);
  };
  if (bindings.outcome !== anyOutcome) compare("outcome", verdict.outcome, bindings.outcome);
  compare("key", verdict.key, bindings.key);
  compare("deployment", verdict.deployment, bindings.deployment);
  compare("tenant", verdict.tenant, bindings.tenant);
  if (bindings.maxAgeSeconds !== undefined) {
    const decidedMs = verdict.decidedAt === undefined ? Number.NaN : Date.parse(verdict.decidedAt);
    if (Number.isNaN(decidedMs)) unmet.push(`max-age: not decided, so no age`);
    else if (nowMs - decidedMs > bindings.maxAgeSeconds * 1000) {
      unmet.push(`max-age: decided ${Math.round((nowMs - decidedMs) / 1000)} s ago, more than ${bindings.maxAgeSeconds} s`);
    }
  }
  return unmet;
}

async function readJson(path: string, io: CommandIo): Promise<unknown> {
  let text: string;
  try {
    text = path === "-" ? await io.readStdin() : readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
}

type Checked = { trusted: true; verdict: Vouched; key: string; subjects?: string[] } | { trusted: false; message: string };

const fromTrust = (verdict: Vouched, trust: Trust): Checked => (trust.trusted ? { trusted: true, verdict, key: trust.key } : trust);

/** The verdict `body` holds and whether the service signed it; bad input when it holds none. */
function check(body: unknown, keys: readonly VerifyKey[]): Checked {
  if (body !== null && typeof body === "object" && "payloadType" in body) return checkEnvelope(body, keys);
  const event = parseWith(VerdictEvent, body);
  if (event.ok) return fromTrust(event.value.verdict, checkEvent(body, keys, { observationId: event.value.observationId }));
  const verdict = parseWith(ObservationVerdict, body);
  if (!verdict.ok) throw new UsageError(`not a verdict: ${describeIssues(verdict.issues)}`);
  return fromTrust(verdict.value, checkVerdict(withoutObserveNote(body as Record<string, unknown>), keys));
}

/** A DSSE envelope: the in-toto attestation of a verdict, its predicate what the bindings are checked against. */
function checkEnvelope(envelope: object, keys: readonly VerifyKey[]): Checked {
  const attestation = checkAttestation(envelope, keys);
  if (attestation.trusted) {
    const { subject, predicate } = attestation.statement;
    const subjects = subject.map(({ name, digest }) => `${name}@${Object.entries(digest).map(([algorithm, hex]) => `${algorithm}:${hex}`).join(",")}`);
    return { trusted: true, verdict: predicate, key: attestation.key, subjects };
  }
  if (attestation.problem === "malformed") throw new UsageError(`not a verdict: ${attestation.message}`);
  return { trusted: false, message: attestation.message };
}

/**
 * observe --json adds `verified` and `mode` beside the service's members: its own notes, which the
 * service never signs. Only in their own shapes: anything else there stays, and fails the check.
 */
function withoutObserveNote({ verified, mode, ...verdict }: Record<string, unknown>): object {
  return {
    ...verdict,
    ...(typeof verified !== "boolean" && verified !== undefined && { verified }),
    ...(mode !== "local" && mode !== "service" && mode !== undefined && { mode }),
  };
}

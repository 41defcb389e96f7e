// `stagewatch get ID` and `stagewatch cancel ID`: what an operator runs to see or stop one
// observation without writing NATS code. Thin over the `<prefix>.get` and `<prefix>.cancel`
// subjects (any replica answers), with observe's exit codes: for `get`, 0 in progress or
// succeeded, 1 failed, timed out or cancelled, 3 succeeded but not verified with a trusted key
// (unless --allow-unverified); for `cancel`, 0 once the observation is decided (by this cancel or
// before it); for both, 2 bad input or no such observation, 3 no service or NATS unreachable.
// The bus client's own modules, not bus/index.js (the service's side too): see observeCommand.ts.
import { connectObserver, type Observer } from "../../bus/client/client.js";
import { natsConfigFromEnv } from "../../bus/connectionOptions.js";
import type { ObservationVerdict } from "../../verdicts/contract/schemas.js";
import { describeIssues } from "../../verdicts/contract/validation.js";
import { parseCommandArgsWithOperands } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { resolveSubjectPrefix, subjectPrefixHelp, subjectPrefixOption } from "../inputs/subjectPrefix.js";
import { exitCodes, UsageError } from "../io/usage.js";
import type { Verification } from "../../bus/client/keyDiscovery.js";
import { allowUnverifiedOption, resolveVerifyKeys, unverifiedSuccess, unverifiedSuccessNotice, verificationNotice, verifyKeyHelp, verifyKeyOption } from "./verification.js";
import { verdictTable } from "../views/verdictTable.js";

const common = `  -o, --output FORMAT     table (default) or json (the ObservationVerdict, schema/json/ObservationVerdict.json)
${verifyKeyHelp}
${subjectPrefixHelp}
  -h, --help

Environment: NATS_URL and NATS credentials as for 'stagewatch serve'; STAGEWATCH_SUBJECT_PREFIX;
STAGEWATCH_VERIFY_KEY.
`;
const commonExits = "2 bad input or no such observation, 3 no stagewatch service, NATS unreachable, or an answer that failed verification.";

export const getUsage = `Usage: stagewatch get OBSERVATION_ID [flags]

Prints an observation: its stages, outcome, age and budget left, and one row per resource.

Flags:
${common}Exit codes: 0 in progress or succeeded, 1 failed, timed out or cancelled, 3 succeeded but
not verified with a trusted key (unless --allow-unverified), ${commonExits}
`;

export const cancelUsage = `Usage: stagewatch cancel OBSERVATION_ID [--reason R] [flags]

Cancels an observation in progress (its verdict becomes cancelled) and prints it; an observation
already decided is left as it was.

Flags:
  --reason R              why, written into the verdict's message
${common}Exit codes: 0 cancelled (or decided before), ${commonExits}
`;

const outputFormats = ["table", "json"] as const;

interface OperatorArgs {
  observationId: string;
  output: (typeof outputFormats)[number];
  prefix: string;
  /** The service's public keys; none: those the service gives, if any (bus/client/keyDiscovery.ts). */
  verifyKey: string[];
  allowUnverified: boolean;
  reason?: string | undefined;
}

const commonOptions = {
  output: { type: "string", short: "o", default: "table" },
  ...verifyKeyOption,
  ...allowUnverifiedOption,
  ...subjectPrefixOption,
  help: { type: "boolean", short: "h" },
} as const;

function parseOperatorArgs(argv: readonly string[], io: CommandIo, usage: string, withReason: boolean): OperatorArgs | undefined {
  const { values, positionals } = withReason
    ? parseCommandArgsWithOperands(argv, { ...commonOptions, reason: { type: "string" } })
    : parseCommandArgsWithOperands(argv, commonOptions);
  if (values.help) {
    io.stdout.write(usage);
    return undefined;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one OBSERVATION_ID, got ${positionals.length}`);
  if (!(outputFormats as readonly string[]).includes(values.output)) throw new UsageError(`-o/--output: must be one of ${outputFormats.join(", ")}`);
  return {
    observationId: positionals[0]!,
    output: values.output as OperatorArgs["output"],
    prefix: resolveSubjectPrefix(values["subject-prefix"], io.env),
    verifyKey: resolveVerifyKeys(values["verify-key"], io.env).map((key) => key.publicKey),
    allowUnverified: values["allow-unverified"],
    reason: (values as { reason?: string }).reason,
  };
}

/** The answer `use` got, and how the observer verified it. */
async function withObserver<T>(env: NodeJS.ProcessEnv, { prefix, verifyKey }: OperatorArgs, use: (observer: Observer) => Promise<T>): Promise<{ answer: T; verification: Verification }> {
  const nats = natsConfigFromEnv(env);
  if (!nats.ok) throw new UsageError(`NATS settings: ${describeIssues(nats.issues)}`);
  const observer = await connectObserver({ ...nats.value, prefix, verifyKey });
  try {
    return { answer: await use(observer), verification: observer.verification };
  } finally {
    await observer.close();
  }
}

function print(io: CommandIo, verdict: ObservationVerdict, verification: Verification, { output }: OperatorArgs): void {
  io.stdout.write(output === "json" ? `${JSON.stringify(verdict, null, 2)}\n` : verdictTable(verdict, Date.now()));
  const notice = verificationNotice(verification);
  if (notice) io.stderr.write(notice);
}

function notFound(io: CommandIo, observationId: string): number {
  io.stderr.write(`stagewatch: no observation ${observationId}\n`);
  return exitCodes.badInput;
}

export async function getCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const args = parseOperatorArgs(argv, io, getUsage, false);
  if (args === undefined) return exitCodes.reached;
  const { answer: verdict, verification } = await withObserver(io.env, args, (observer) => observer.get(args.observationId));
  if (verdict === undefined) return notFound(io, args.observationId);
  print(io, verdict, verification, args);
  if (unverifiedSuccess(verdict, verification, args.allowUnverified)) {
    io.stderr.write(unverifiedSuccessNotice);
    return exitCodes.unavailable;
  }
  return verdict.outcome === "in_progress" || verdict.outcome === "succeeded" ? exitCodes.reached : exitCodes.failed;
}

export async function cancelCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const args = parseOperatorArgs(argv, io, cancelUsage, true);
  if (args === undefined) return exitCodes.reached;
  const { answer: verdict, verification } = await withObserver(io.env, args, (observer) => observer.cancel(args.observationId, args.reason));
  if (verdict === undefined) return notFound(io, args.observationId);
  if (verdict.outcome !== "cancelled") io.stderr.write(`stagewatch: observation ${args.observationId} was already decided: ${verdict.outcome}\n`);
  print(io, verdict, verification, args);
  return exitCodes.reached;
}

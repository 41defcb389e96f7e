// `stagewatch verify FILE`: checks a verdict kept as evidence, offline, with nothing but the file
// and the service's public key: the signature covers the body's canonical form, so the file may
// have been pretty-printed, reordered or copied anywhere. It accepts what observe writes
// (`--verdict-file`, or `--json` output) and a verdict event as read from the stream.
// Exit codes: 0 valid, 1 invalid, 2 bad input.
import { readFileSync } from "node:fs";
import type { VerifyKey } from "../signing/keys.js";
import { checkEvent, checkVerdict, type Trust } from "../signing/trust.js";
import { ObservationVerdict, VerdictEvent } from "../verdicts/schemas.js";
import { describeIssues, parseWith } from "../verdicts/validation.js";
import { parseCommandArgsWithOperands } from "./args.js";
import type { CommandIo } from "./commandIo.js";
import { exitCodes, UsageError } from "./usage.js";
import { resolveVerifyKeys } from "./verification.js";

export const verifyUsage = `Usage: stagewatch verify FILE [--key KEY]...

Checks that a verdict was signed by the stagewatch service and not changed since: a file written
by 'stagewatch observe --verdict-file' (or its --json output), or a verdict event from the stream.

  FILE                    the verdict ('-': standard input)
  --key KEY               the service's public key (N...; repeatable, or comma separated, for a
                          rotation's overlap; default: $STAGEWATCH_VERIFY_KEY)
  -h, --help

Prints what it checked: the observation, its deployment and key, the outcome and the signing key.
Exit codes: 0 valid, 1 invalid (unsigned, changed, signed by another key), 2 bad input (no such
file, not JSON, not a verdict, no key given).
`;

export async function verifyCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgsWithOperands(argv, { key: { type: "string", multiple: true }, help: { type: "boolean", short: "h" } });
  if (values.help) {
    io.stdout.write(verifyUsage);
    return exitCodes.reached;
  }
  if (positionals.length !== 1) throw new UsageError(`expected one FILE, got ${positionals.length}`);
  const path = positionals[0]!;
  const keys = resolveVerifyKeys(values.key, io.env, "--key");
  if (keys.length === 0) throw new UsageError("no key to verify with: give --key or STAGEWATCH_VERIFY_KEY");
  const { verdict, trust } = check(await readJson(path, io), keys);
  if (!trust.trusted) {
    io.stdout.write(`invalid: ${trust.message}\n`);
    return exitCodes.failed;
  }
  io.stdout.write(`valid: observation ${verdict.observationId}, deployment ${verdict.deployment}, key ${verdict.key}: ${verdict.outcome} (signed by ${trust.key})\n`);
  return exitCodes.reached;
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

/** The verdict `body` holds and whether the service signed it; bad input when it holds none. */
function check(body: unknown, keys: readonly VerifyKey[]): { verdict: ObservationVerdict; trust: Trust } {
  const event = parseWith(VerdictEvent, body);
  if (event.ok) return { verdict: event.value.verdict, trust: checkEvent(body, keys, { observationId: event.value.observationId }) };
  const verdict = parseWith(ObservationVerdict, body);
  if (!verdict.ok) throw new UsageError(`not a verdict: ${describeIssues(verdict.issues)}`);
  return { verdict: verdict.value, trust: checkVerdict(withoutObserveNote(body as Record<string, unknown>), keys) };
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

// Whether the commands that read verdicts (`observe`, `get`, `cancel`) verify them, and what they
// say about it on stderr: the service's public keys come from --verify-key or
// $STAGEWATCH_VERIFY_KEY; without them a verdict is printed as it came, with one line saying it
// was not verified, since anyone allowed to publish on the events subjects could have written it.
import type { Logger } from "../logging/logger.js";
import { SigningKeyError, verifyKeysFromEnv, verifyKeysOf, verifyKeyVariable, type VerifyKey } from "../signing/keys.js";
import { UsageError } from "./usage.js";

export const verifyKeyOption = { "verify-key": { type: "string", multiple: true } } as const;

export const verifyKeyHelp = `  --verify-key KEY        the service's public key (N...; repeatable, or comma separated, for a
                          rotation's overlap): verdicts and events not signed by it are ignored
                          (default: $${verifyKeyVariable}; none: verdicts are not verified)`;

/** The flag's keys, else the environment's; a key that is no public key is bad input naming where it came from. */
export function resolveVerifyKeys(flag: readonly string[] | undefined, env: NodeJS.ProcessEnv, flagName = "--verify-key"): VerifyKey[] {
  try {
    return flag === undefined ? verifyKeysFromEnv(env) : verifyKeysOf(flag.join(","));
  } catch (error) {
    if (error instanceof SigningKeyError) throw new UsageError(flag === undefined ? error.message : `${flagName}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The line printed once, after the verdict, when nothing was verified; one line of a terminal. */
export const unverifiedNotice = `stagewatch: verdict not verified (no ${verifyKeyVariable}): anyone who may publish events could forge it\n`;

/**
 * The client's logger for `observe`: it reports the first event that failed verification, and the
 * command prints one line at the end with the count (a line in the middle would tear the live view).
 */
export function rejectionReport(): { logger: Logger; line(rejected: number): string | undefined } {
  let first: string | undefined;
  const ignore = () => {};
  return {
    logger: { debug: ignore, info: ignore, error: ignore, warn: (_, message) => (first ??= message) },
    line: (rejected) => (rejected === 0 ? undefined : `stagewatch: ${first ?? "ignored a message that failed verification"}${rejected > 1 ? `, and ${rejected - 1} more` : ""}\n`),
  };
}

// Whether the commands that read verdicts (`observe`, `get`, `cancel`) verify them, and what they
// say about it on stderr: the service's public keys come from --verify-key or
// $STAGEWATCH_VERIFY_KEY, else from the service itself (bus/client/keyDiscovery.ts), which is its word
// only where no one else could have answered. A verdict not verified with a key from a trusted
// source is printed as it came, with one line saying why; a `succeeded` one is then no success
// (exit 3, unless --allow-unverified), since anyone allowed to publish events could have written it.
import type { Verification } from "../../bus/client/keyDiscovery.js";
import type { Logger } from "../../logging/logger.js";
import { SigningKeyError, verifyKeysFromEnv, verifyKeysOf, verifyKeyVariable, type VerifyKey } from "../../signing/keys.js";
import { UsageError } from "../io/usage.js";

export const verifyKeyOption = { "verify-key": { type: "string", multiple: true } } as const;

export const verifyKeyHelp = `  --verify-key KEY        the service's public key (N...; repeatable, or comma separated, for a
                          rotation's overlap): verdicts and events not signed by it are ignored
                          (default: $${verifyKeyVariable}; none: the key the service gives on
                          <prefix>.keys, trusted only where the NATS server lets no one else
                          answer there, as in the account layout)
  --allow-unverified      take a succeeded verdict that could not be verified with a trusted key
                          as reached (exit 0) rather than unknown (exit 3): for a service that
                          signs nothing, on purpose`;

export const allowUnverifiedOption = { "allow-unverified": { type: "boolean", default: false } } as const;

/** The flag's keys, else the environment's; a key that is no public key is bad input naming where it came from. */
export function resolveVerifyKeys(flag: readonly string[] | undefined, env: NodeJS.ProcessEnv, flagName = "--verify-key"): VerifyKey[] {
  try {
    return flag === undefined ? verifyKeysFromEnv(env) : verifyKeysOf(flag.join(","));
  } catch (error) {
    if (error instanceof SigningKeyError) throw new UsageError(flag === undefined ? error.message : `${flagName}: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * The line printed once, after the verdict, saying what checked it: nothing for a key the caller
 * gave; where a learned key came from and what that proves; why nothing was verified.
 */
export function verificationNotice(verification: Verification): string | undefined {
  if (verification.source === "configured") return undefined;
  const risk = verification.trusted ? "" : `; anyone who may publish events could have written it`;
  return `stagewatch: verdict ${verification.account}${risk}\n`;
}

/**
 * A verdict the caller may not act on as a success: `succeeded`, but not verified with a trusted
 * key. Exit 3 (the outcome is unknown, as for an answer that fails verification), never 0.
 */
export function unverifiedSuccess(verdict: { outcome: string }, verification: Verification, allowed: boolean): boolean {
  return verdict.outcome === "succeeded" && !verification.trusted && !allowed;
}

export const unverifiedSuccessNotice = `stagewatch: exit 3: the verdict says succeeded, but it could not be verified as the service's; give the service's key (--verify-key or ${verifyKeyVariable}: the chart's ConfigMap <release>-verify-keys), or --allow-unverified to take it as it is\n`;

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

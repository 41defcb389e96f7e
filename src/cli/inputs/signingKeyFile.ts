// The service's signing key file (`serve --signing-key`, `keys show`): the nkeys seed `keys create`
// writes, read before anything connects, so a missing or wrong file is bad input (exit 2) naming
// it rather than a service that starts and signs nothing.
import { readFileSync } from "node:fs";
import { SigningKeyError, signingKeyFromSeed, type SigningKey } from "../../signing/keys.js";
import { UsageError } from "../io/usage.js";

/** Where `serve` finds the file when --signing-key is not given (the chart mounts a Secret there). */
export const signingKeyFileVariable = "STAGEWATCH_SIGNING_KEY_FILE";

/** `source` names the flag or variable the path came from, for the message. */
export function readSigningKey(path: string, source: string): SigningKey {
  let seed: string;
  try {
    seed = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`${source}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return signingKeyFromSeed(seed);
  } catch (error) {
    if (error instanceof SigningKeyError) throw new UsageError(`${source}: ${path} holds ${error.message}`, { cause: error });
    throw error;
  }
}

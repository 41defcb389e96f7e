// How a thrown error becomes a line on stderr and an exit code (usage.ts). Loaded by main.ts only
// once a command has thrown, so the classes it branches on cost a command's start-up nothing.
import { ObservationConflictError, ObservationRejectedError, ObserverInternalError, ObserverQuotaError, ObserverUnavailableError, VerdictVerificationError } from "../bus/client/clientErrors.js";
import { NatsConfigError } from "../bus/connectionOptions.js";
import { describeIssues } from "../verdicts/contract/validation.js";
import type { CommandIo } from "./io/commandIo.js";
import { ManifestError } from "./inputs/manifests.js";
import { exitCodes, UsageError } from "./io/usage.js";

export async function reportError(error: unknown, stderr: CommandIo["stderr"]): Promise<number> {
  const say = (message: string) => stderr.write(`stagewatch: ${message}\n`);
  if (error instanceof ObservationRejectedError) {
    say(`request rejected (${error.code}): ${describeIssues(error.issues) || error.message}`);
    return exitCodes.badInput;
  }
  if (error instanceof NatsConfigError) {
    say(`${error.message}`);
    return exitCodes.badInput;
  }
  if (error instanceof UsageError || error instanceof ManifestError || error instanceof ObservationConflictError) {
    say(error.message);
    return exitCodes.badInput;
  }
  // An answer that failed verification is no answer from the service: the outcome is unknown (3), never a failure (1).
  if (error instanceof ObserverUnavailableError || error instanceof ObserverQuotaError || error instanceof ObserverInternalError || error instanceof VerdictVerificationError || (await isServiceStartError(error))) {
    say((error as Error).message);
    return exitCodes.unavailable;
  }
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return exitCodes.failed;
}

/**
 * Only `serve` and `demo` start the service, and they have loaded its module by the time it
 * throws: the import is then free, while `observe` never loads the service to find out its error
 * is something else.
 */
async function isServiceStartError(error: unknown): Promise<boolean> {
  if (!(error instanceof Error) || error.name !== "ServiceStartError") return false;
  const { ServiceStartError } = await import("../service/service.js");
  return error instanceof ServiceStartError;
}

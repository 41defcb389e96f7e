// Command dispatch and the one place errors become exit codes: a typed error says which code,
// anything else is a bug and prints its stack.
import { NatsConfigError, ObservationConflictError, ObservationRejectedError, ObserverInternalError, ObserverUnavailableError } from "../bus/index.js";
import { ServiceStartError } from "../service/service.js";
import { describeIssues } from "../verdicts/index.js";
import { demoCommand } from "./demoCommand.js";
import { listCommand } from "./listCommand.js";
import { ManifestError } from "./manifests.js";
import { observeCommand } from "./observeCommand.js";
import { cancelCommand, getCommand } from "./operatorCommands.js";
import { serveCommand } from "./serveCommand.js";
import { exitCodes, overview, UsageError } from "./usage.js";

const commands: Record<string, (argv: readonly string[]) => Promise<number>> = {
  serve: serveCommand,
  observe: observeCommand,
  demo: demoCommand,
  list: listCommand,
  get: getCommand,
  cancel: cancelCommand,
};

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    process.stdout.write(overview);
    return name === undefined ? exitCodes.badInput : exitCodes.reached;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`stagewatch: unknown command '${name}'\n\n${overview}`);
    return exitCodes.badInput;
  }
  try {
    return await command(rest);
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  const say = (message: string) => process.stderr.write(`stagewatch: ${message}\n`);
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
  if (error instanceof ObserverUnavailableError || error instanceof ObserverInternalError || error instanceof ServiceStartError) {
    say(error.message);
    return exitCodes.unavailable;
  }
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return exitCodes.failed;
}

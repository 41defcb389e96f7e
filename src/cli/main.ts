// Command dispatch and the one place errors become exit codes: a typed error says which code,
// anything else is a bug and prints its stack.
import { NatsConfigError, ObservationConflictError, ObservationRejectedError, ObserverInternalError, ObserverUnavailableError } from "../bus/index.js";
import { describeIssues } from "../verdicts/index.js";
import { ManifestError } from "./manifests.js";
import { exitCodes, overview, UsageError } from "./usage.js";

type Command = (argv: readonly string[]) => Promise<number>;

// Each command is loaded when run: the Kubernetes client alone takes about half a second to
// import, and `list`, `get` and `cancel` never touch Kubernetes.
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serveCommand.js")).serveCommand,
  observe: async () => (await import("./observeCommand.js")).observeCommand,
  demo: async () => (await import("./demoCommand.js")).demoCommand,
  list: async () => (await import("./listCommand.js")).listCommand,
  get: async () => (await import("./operatorCommands.js")).getCommand,
  cancel: async () => (await import("./operatorCommands.js")).cancelCommand,
};

export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    process.stdout.write(overview);
    return name === undefined ? exitCodes.badInput : exitCodes.reached;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`stagewatch: unknown command '${name}'\n\n${overview}`);
    return exitCodes.badInput;
  }
  try {
    return await (await load())(rest);
  } catch (error) {
    return reportError(error);
  }
}

async function reportError(error: unknown): Promise<number> {
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
  if (error instanceof ObserverUnavailableError || error instanceof ObserverInternalError) {
    say(error.message);
    return exitCodes.unavailable;
  }
  // Only `serve` and `demo` throw it, and they have loaded the service already.
  const { ServiceStartError } = await import("../service/service.js");
  if (error instanceof ServiceStartError) {
    say(error.message);
    return exitCodes.unavailable;
  }
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return exitCodes.failed;
}

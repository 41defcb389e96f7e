// Command dispatch and the one place errors become exit codes: a typed error says which code,
// anything else is a bug and prints its stack.
//
// Start-up is part of every CI job that runs `observe`, so this file loads nothing but the usage
// text: each command's module is imported when it is the one being run, and the error classes
// only once something has been thrown. `serve` and `demo` bring the whole service and the
// Kubernetes client; `observe`, `list`, `get` and `cancel` only the bus client, zod and yaml
// (test/unit/cli-imports.test.ts walks their import graphs).
//
// Commands write and read the `io` they are given, not the process's streams and environment
// (commandIo.ts), so their exit codes and messages are unit tests (main.test.ts and one file per
// command). Signals are the one thing of the process a command still reaches itself: `serve`
// stops on SIGTERM and SIGINT.
import type { Command, CommandIo } from "./io/commandIo.js";
import { exitCodes, overview } from "./io/usage.js";

const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./commands/serveCommand.js")).serveCommand,
  observe: async () => (await import("./commands/observeCommand.js")).observeCommand,
  demo: async () => (await import("./commands/demoCommand.js")).demoCommand,
  list: async () => (await import("./commands/listCommand.js")).listCommand,
  get: async () => (await import("./commands/operatorCommands.js")).getCommand,
  cancel: async () => (await import("./commands/operatorCommands.js")).cancelCommand,
  health: async () => (await import("./commands/healthCommand.js")).healthCommand,
  reasons: async () => (await import("./commands/reasonsCommand.js")).reasonsCommand,
  verify: async () => (await import("./commands/verifyCommand.js")).verifyCommand,
  keys: async () => (await import("./commands/keysCommand.js")).keysCommand,
};

/** Every command's name: the reference pages (scripts/docs) are one per name. */
export const commandNames: readonly string[] = Object.keys(commands);

export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    io.stdout.write(overview);
    return name === undefined ? exitCodes.badInput : exitCodes.reached;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    io.stderr.write(`stagewatch: unknown command '${name}'\n\n${overview}`);
    return exitCodes.badInput;
  }
  try {
    return await (await load())(rest, io);
  } catch (error) {
    const { reportError } = await import("./errorReport.js");
    return reportError(error, io.stderr);
  }
}

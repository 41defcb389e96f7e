// What a command reads and writes besides its arguments: its two output streams, standard input
// and the environment. cli.ts hands main.ts the process's own; a unit test hands it buffers it
// reads back (testing/runCli.ts), so the exit code and message of bad input are tested without
// spawning the compiled CLI. Types only: nothing here costs a command's start-up.
import type { Terminal } from "../views/progressViews.js";

export interface CommandIo {
  readonly stdout: { write(text: string): unknown };
  /** `isTTY`: observe draws its live view (progressViews.ts) only on a terminal. */
  readonly stderr: Terminal & { readonly isTTY?: boolean | undefined };
  /** Standard input's text to its end; read only by `observe -f -`. */
  readStdin(): Promise<string>;
  /** NATS_URL and its credentials, STAGEWATCH_SUBJECT_PREFIX, KUBECONFIG, HOME, NO_COLOR. */
  readonly env: NodeJS.ProcessEnv;
}

/** What every command is: its arguments after the command's name, to an exit code (usage.ts). */
export type Command = (argv: readonly string[], io: CommandIo) => Promise<number>;

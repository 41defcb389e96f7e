// The command line run in this process, as a shell would run the compiled one: arguments in,
// exit code and both streams out, nothing of this process's environment but what `env` holds.
// For the unit tests of what needs no cluster and no NATS (bad input, help, usage).
import { main } from "../main.js";

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** The command's whole environment (default none: no NATS_URL, no KUBECONFIG). */
  env?: NodeJS.ProcessEnv;
  /** What `-f -` reads. */
  stdin?: string;
}

export async function runCli(argv: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const status = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    readStdin: async () => options.stdin ?? "",
    env: options.env ?? {},
  });
  return { status, stdout, stderr };
}

/** Both streams, for the message of a failed exit-code assertion (the e2e tests' spawned CLI's too). */
export const output = (result: Pick<CliResult, "stdout" | "stderr">) => `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

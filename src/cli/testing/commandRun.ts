// A command run in process, as the dispatcher runs it, with what it wrote to stdout and stderr and
// its exit code; `env` is laid over process.env for the run.
import { vi } from "vitest";
import { main } from "../main.js";

export interface CommandRun {
  status: number;
  stdout: string;
  stderr: string;
}

export async function runCommand(argv: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CommandRun> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  try {
    return { status: await main(argv), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    vi.unstubAllEnvs();
  }
}

/**
 * The compiled command line as a shell runs it: the build the e2e global setup made once for the
 * run, and the one way tests run a `stagewatch` command to completion.
 */
import { inject } from "vitest";
import { runToCompletion, scratchDir, type CommandResult, type CompiledTree } from "../../cluster/stagewatch.ts";
import { natsUrl } from "./cluster.ts";
import { withE2eVerifyKey } from "./signing.ts";

/** The global setup's build: `cli` is its dist/cli.js, `root` the tree (examples/ beside dist/). */
export function compiledStagewatch(): CompiledTree {
  return inject("stagewatch");
}

let defaultDir: string | undefined;

export interface StagewatchRunOptions {
  /**
   * The command's environment besides PATH and HOME (nothing of this process's leaks in, as in a
   * CI job). Default: NATS_URL of the e2e server; `{}` is none at all. observe, get and cancel
   * with NATS get STAGEWATCH_VERIFY_KEY of the e2e services (signing.ts) unless it is set here.
   */
  env?: NodeJS.ProcessEnv;
  /** Its working directory and HOME (no kubeconfig there). Default: a scratch directory of this file's. */
  cwd?: string;
  /** It is killed after this long, which then fails the exit-code check. Default 150 s. */
  timeoutMs?: number;
}

/** `stagewatch ARGS...` to completion. */
export function runStagewatch(args: readonly string[], options: StagewatchRunOptions = {}): Promise<CommandResult> {
  const cwd = options.cwd ?? (defaultDir ??= scratchDir("cli-run"));
  return runToCompletion(process.execPath, [compiledStagewatch().cli, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, ...withE2eVerifyKey(args, options.env ?? { NATS_URL: natsUrl() }) },
    timeoutMs: options.timeoutMs ?? 150_000,
  });
}

export { output } from "../../../src/cli/testing/runCli.ts";

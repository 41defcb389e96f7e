/**
 * Shell pipelines as a CI job runs them: `bash -euo pipefail` with the real `kubectl` (built by
 * test/cluster/build.sh from the same Kubernetes module as the control plane), the real `helm`
 * (build-helm.sh) and the compiled `stagewatch` on PATH, and nothing of this process's
 * environment but what a CI job would set (KUBECONFIG, NATS_URL).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildOrReuseBinaries } from "../../cluster/binaries.ts";
import { ensureHelm } from "../../cluster/helm.ts";
import { afterAll, beforeAll } from "vitest";
import { compileStagewatch, scratchDir, startServe, type CommandResult, type RunningService } from "../../cluster/stagewatch.ts";
import { removeBus } from "./bus.ts";
import { createNamespace, deleteNamespace, kubeconfigPath, natsUrl } from "./cluster.ts";

export interface Pipelines {
  /** The directory holding `kubectl`, `helm` and `stagewatch`, first on the scripts' PATH. */
  readonly bin: string;
  /** Runs `script` with bash; the child is killed after `timeoutMs` (its status is then null). */
  run(script: string, options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CommandResult>;
}

/** `STAGEWATCH_KUBECTL` names an existing kubectl (with E2E_KUBECONFIG, say); otherwise build.sh's. */
function kubectlBinary(): string {
  return process.env.STAGEWATCH_KUBECTL || buildOrReuseBinaries().kubectl;
}

export async function pipelines(options: { dir: string; cli: string; kubeconfigPath: string; natsUrl: string }): Promise<Pipelines> {
  const bin = join(options.dir, "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(kubectlBinary(), join(bin, "kubectl"));
  symlinkSync(await ensureHelm(), join(bin, "helm"));
  // What `npm install -g stagewatch` puts on PATH: the compiled cli.js run by node.
  writeFileSync(join(bin, "stagewatch"), `#!/bin/sh\nexec '${process.execPath}' '${options.cli}' "$@"\n`);
  chmodSync(join(bin, "stagewatch"), 0o755);
  const home = join(options.dir, "home");
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: [bin, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(":"),
    HOME: home,
    KUBECONFIG: options.kubeconfigPath,
    NATS_URL: options.natsUrl,
  };
  return {
    bin,
    run: (script, runOptions = {}) =>
      new Promise((resolve, reject) => {
        const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
          cwd: options.dir,
          env: { ...env, ...runOptions.env },
          stdio: ["ignore", "pipe", "pipe"],
          // A group of its own, so a timeout kills the whole pipeline, not only bash.
          detached: true,
        });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        const timer = setTimeout(() => {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        }, runOptions.timeoutMs ?? 150_000);
        child.once("error", reject);
        child.once("close", (status) => {
          clearTimeout(timer);
          resolve({ status, stdout, stderr });
        });
      }),
  };
}

/** What a pipeline test file runs in; filled in by the file's beforeAll. */
export interface PipelineEnvironment {
  /** The subject prefix the compiled `stagewatch serve` answers on. */
  readonly prefix: string;
  /** The scratch directory: the build, `bin/`, the jobs' checkouts. */
  dir: string;
  /** A namespace of the e2e cluster for the file's objects. */
  namespace: string;
  sh: Pipelines;
}

/** Compiling stagewatch, and on a machine that never built them, kubectl and helm. */
const setupTimeoutMs = 20 * 60_000;

/**
 * Registers the file's beforeAll and afterAll: stagewatch compiled, the shell with kubectl, helm and
 * the CLI, a namespace, and the compiled `serve` under a prefix of its own; all removed after.
 */
export function usePipelineEnvironment(name: string): PipelineEnvironment {
  const env = { prefix: `e2e-${name}-${randomBytes(3).toString("hex")}` } as PipelineEnvironment;
  let service: RunningService | undefined;
  beforeAll(async () => {
    env.dir = scratchDir(name);
    const compiled = compileStagewatch(join(env.dir, "build"));
    env.sh = await pipelines({ dir: env.dir, cli: compiled.cli, kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl() });
    env.namespace = await createNamespace(name);
    service = await startServe(compiled.cli, { kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), dir: env.dir, args: [`--subject-prefix=${env.prefix}`] });
  }, setupTimeoutMs);
  afterAll(async () => {
    await service?.process.stop();
    await removeBus(natsUrl(), env.prefix);
    if (env.namespace) await deleteNamespace(env.namespace);
  });
  return env;
}

/** A command's output, for an assertion's message. */
export const output = (result: CommandResult) => `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

/**
 * Shell pipelines as a CI job runs them: `bash -euo pipefail` with the real `kubectl` (built by
 * test/cluster/build.sh from the same Kubernetes module as the control plane), the real `helm`
 * (build-helm.sh) and the compiled `stagewatch` on PATH, and nothing of this process's
 * environment but what a CI job would set (KUBECONFIG, NATS_URL, STAGEWATCH_VERIFY_KEY).
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildOrReuseBinaries } from "../../cluster/binaries.ts";
import { ensureHelm } from "../../cluster/helm.ts";
import { afterAll, beforeAll } from "vitest";
import { runToCompletion, scratchDir, type CommandResult } from "../../cluster/stagewatch.ts";
import { compiledStagewatch } from "./cli.ts";
import { createNamespace, deleteNamespace, kubeconfigPath, natsUrl } from "./cluster.ts";
import { useServes } from "./serve.ts";
import { e2eVerifyKey } from "./signing.ts";

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
    // The service's public key, as a CI job of the cluster gets it from the chart's ConfigMap.
    STAGEWATCH_VERIFY_KEY: e2eVerifyKey(),
  };
  return {
    bin,
    run: (script, runOptions = {}) =>
      runToCompletion("bash", ["-euo", "pipefail", "-c", script], {
        cwd: options.dir,
        env: { ...env, ...runOptions.env },
        timeoutMs: runOptions.timeoutMs ?? 150_000,
        // A group of its own, so a timeout kills the whole pipeline, not only bash.
        group: true,
      }),
  };
}

/** What a pipeline test file runs in; filled in by the file's beforeAll. */
export interface PipelineEnvironment {
  /** The subject prefix the compiled `stagewatch serve` answers on. */
  prefix: string;
  /** The scratch directory: `bin/`, the jobs' checkouts. */
  dir: string;
  /** A namespace of the e2e cluster for the file's objects. */
  namespace: string;
  sh: Pipelines;
}

/** On a machine that never built them, building kubectl and helm. */
const setupTimeoutMs = 20 * 60_000;

/**
 * Registers the file's beforeAll and afterAll: the shell with kubectl, helm and the compiled CLI, a
 * namespace, and `serve` under a prefix of its own (serve.ts); all removed after.
 */
export function usePipelineEnvironment(name: string): PipelineEnvironment {
  const env = {} as PipelineEnvironment;
  const serves = useServes();
  beforeAll(async () => {
    env.dir = scratchDir(name);
    env.sh = await pipelines({ dir: env.dir, cli: compiledStagewatch().cli, kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl() });
    env.namespace = await createNamespace(name);
    env.prefix = (await serves.start({ name })).prefix;
  }, setupTimeoutMs);
  afterAll(async () => {
    if (env.namespace) await deleteNamespace(env.namespace);
  });
  return env;
}

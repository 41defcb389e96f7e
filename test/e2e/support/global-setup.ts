/**
 * Global setup of the e2e project: starts the local control plane and NATS (building the binaries
 * on first use), or uses an existing cluster and server named by E2E_KUBECONFIG / E2E_NATS_URL,
 * and provides their kubeconfig path and URL to the tests. Only what it started is stopped.
 *
 * It also compiles stagewatch once for the whole run, while the cluster starts, and provides the
 * tree (`compiledStagewatch()` in cli.ts): every test that runs the CLI or `stagewatch serve` as a
 * process runs that build. The tree gets `examples/` beside `dist/`, as in a checkout, for
 * `stagewatch demo`; the image test's production tree copies `dist/` only.
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startLocalCluster, type LocalCluster } from "../../cluster/local-cluster.ts";
import { compileStagewatch, REPO_ROOT, scratchDir, type CompiledTree } from "../../cluster/stagewatch.ts";

async function compileForTests(): Promise<CompiledTree> {
  const compiled = await compileStagewatch(join(scratchDir("stagewatch"), "build"));
  cpSync(join(REPO_ROOT, "examples"), join(compiled.root, "examples"), { recursive: true });
  return compiled;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const kubeconfigPath = process.env.E2E_KUBECONFIG;
  const natsUrl = process.env.E2E_NATS_URL;
  const [compiled, started] = await Promise.allSettled([
    compileForTests(),
    kubeconfigPath && natsUrl ? undefined : startLocalCluster({ stateDir: join(REPO_ROOT, ".stagewatch", "e2e", "cluster") }),
  ]);
  const cluster: LocalCluster | undefined = started.status === "fulfilled" ? started.value : undefined;
  if (compiled.status === "rejected") {
    await cluster?.stop();
    throw compiled.reason;
  }
  if (started.status === "rejected") throw started.reason;
  project.provide("stagewatch", compiled.value);
  project.provide("kubeconfigPath", kubeconfigPath || cluster!.kubeconfigPath);
  project.provide("natsUrl", natsUrl || cluster!.natsUrl);
  return cluster && (() => cluster.stop());
}

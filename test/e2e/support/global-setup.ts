/**
 * Global setup of the e2e project: starts the local control plane and NATS (building the binaries
 * on first use), or uses an existing cluster and server named by E2E_KUBECONFIG / E2E_NATS_URL,
 * and provides their kubeconfig path and URL to the tests. Only what it started is stopped.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startLocalCluster } from "../../cluster/local-cluster.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const kubeconfigPath = process.env.E2E_KUBECONFIG;
  const natsUrl = process.env.E2E_NATS_URL;
  if (kubeconfigPath && natsUrl) {
    project.provide("kubeconfigPath", kubeconfigPath);
    project.provide("natsUrl", natsUrl);
    return undefined;
  }
  const cluster = await startLocalCluster({ stateDir: join(repoRoot, ".stagewatch", "e2e", "cluster") });
  project.provide("kubeconfigPath", kubeconfigPath || cluster.kubeconfigPath);
  project.provide("natsUrl", natsUrl || cluster.natsUrl);
  return () => cluster.stop();
}

/**
 * The local cluster for people:
 *   node test/cluster/cli.ts up      start it in the background and write .stagewatch/local/env
 *   node test/cluster/cli.ts down    stop it
 *   node test/cluster/cli.ts build   only build (or find) the binaries
 * (`npm run cluster:up` / `cluster:down` / `cluster:build`). `up` replaces a cluster already running.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildOrReuseBinaries } from "./binaries.ts";
import { startLocalCluster, stopLocalCluster } from "./local-cluster.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const localDir = join(repoRoot, ".stagewatch", "local");
const stateDir = join(localDir, "cluster");
const envFile = join(localDir, "env");

async function main(command: string | undefined): Promise<number> {
  switch (command) {
    case "up": {
      const cluster = await startLocalCluster({ stateDir, stopOnExit: false });
      mkdirSync(localDir, { recursive: true });
      writeFileSync(envFile, `KUBECONFIG=${cluster.kubeconfigPath}\nNATS_URL=${cluster.natsUrl}\n`);
      process.stdout.write(
        `Local cluster running (Kubernetes ${cluster.kubernetesVersion}); logs in ${join(stateDir, "logs")}.\n` +
          `Wrote ${envFile}:\n  KUBECONFIG=${cluster.kubeconfigPath}\n  NATS_URL=${cluster.natsUrl}\n` +
          `Use it with: set -a; . ${envFile}; set +a\nStop it with: npm run cluster:down\n`,
      );
      return 0;
    }
    case "down": {
      const killed = stopLocalCluster(stateDir);
      rmSync(envFile, { force: true });
      process.stdout.write(
        `Local cluster stopped${killed.length > 0 ? ` (had to kill ${killed.join(", ")})` : ""}.\n`,
      );
      return 0;
    }
    case "build": {
      const binaries = buildOrReuseBinaries();
      for (const [name, path] of Object.entries(binaries)) process.stdout.write(`${name}=${path}\n`);
      return 0;
    }
    default:
      process.stderr.write("usage: node test/cluster/cli.ts up|down|build\n");
      return 2;
  }
}

process.exitCode = await main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});

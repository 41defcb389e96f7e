// `./dev.sh bench cluster [flags]`: the live-cluster benchmark (scale.ts) on a local cluster of
// its own, started with the controller manager's and scheduler's client QPS raised, or on an
// existing cluster and NATS (--kubeconfig with --nats-url). Writes bench/results/cluster.json, or
// bench/results/<--results>.json.
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildOrReuseBinaries } from "../../test/cluster/binaries.ts";
import { startLocalCluster } from "../../test/cluster/local-cluster.ts";
import { scratchDir } from "../../test/cluster/stagewatch.ts";
import { writeResults } from "../support/results.ts";
import { parseClusterBenchArgs } from "./benchArgs.ts";
import { runClusterBench } from "./scale.ts";

const usage = `Usage: ./dev.sh bench cluster [flags]
  --observations N      Deployments observed, one observation each (default 1000)
  --pods M              pods in all, spread evenly over the Deployments (default 20000)
  --namespaces K        namespaces the Deployments are spread over (default: one per 100 observations)
  --concurrency C       Deployments created and observed at once (default 20)
  --budget-minutes B    each observation's timeout, and how long verdicts are waited for; what
                        is missing then is reported as missing (default 12)
  --helm-sample S       Helm releases per scenario and wait mode (default 20; 0 skips Helm)
  --helm-timeout SEC    Helm's --timeout, what it waits out on ImagePullBackOff (default 30)
  --client-qps Q        kube-controller-manager's and kube-scheduler's --kube-api-qps (burst 2Q;
                        the controller manager's Deployment/ReplicaSet workers Q/10) (default 500)
  --nodes N             kwok Nodes of 1,000 pods each (default: enough for the pods, plus one)
  --profile DIR         CPU profile of the service over the measured phase, and its memory before
                        and after (bench/cluster/profile-on-signal.ts); summarize with
                        bench/cluster/profileSummary.ts
  --heap-snapshot       with --profile: a heap snapshot at the end of the phase
  --results NAME        write bench/results/NAME.json instead of cluster.json (a run kept beside the latest)
  --kubeconfig PATH, --nats-url URL   an existing cluster (admin) and NATS instead of a local one
`;

const { values, wholeNumber: int } = parseClusterBenchArgs(usage, {
  observations: { type: "string", default: "1000" },
  pods: { type: "string", default: "20000" },
  namespaces: { type: "string" },
  concurrency: { type: "string", default: "20" },
  "budget-minutes": { type: "string", default: "12" },
  "helm-sample": { type: "string", default: "20" },
  "helm-timeout": { type: "string", default: "30" },
  "client-qps": { type: "string", default: "500" },
  nodes: { type: "string" },
  profile: { type: "string" },
  "heap-snapshot": { type: "boolean" },
  results: { type: "string", default: "cluster" },
});
const observations = int("observations");
const pods = int("pods");
const log = (line: string) => process.stderr.write(`bench cluster: ${line}\n`);

const root = fileURLToPath(new URL("../../", import.meta.url));
log("compiling stagewatch (npm run build)");
for (const step of [[join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], [join(root, "scripts/bundle-cli.mjs")]]) {
  const build = spawnSync(process.execPath, step, { cwd: root, stdio: "inherit" });
  if (build.status !== 0) process.exit(1);
}

const binaries = buildOrReuseBinaries();
const harness = {
  clientQps: int("client-qps"),
  nodes: values.nodes === undefined ? Math.ceil(pods / 1000) + 1 : int("nodes"),
};
const existing = values.kubeconfig !== undefined && values["nats-url"] !== undefined;
const cluster = existing ? undefined : await startLocalCluster({ stateDir: join(root, ".stagewatch", "bench", "cluster"), binaries, log, ...harness });
const wallStart = Date.now();
try {
  const result = await runClusterBench({
    kubeconfigPath: values.kubeconfig ?? cluster!.kubeconfigPath,
    natsUrl: values["nats-url"] ?? cluster!.natsUrl,
    cli: join(root, "dist", "cli.js"),
    dir: scratchDir("bench-cluster"),
    observations,
    pods,
    namespaces: values.namespaces === undefined ? Math.max(1, Math.ceil(observations / 100)) : int("namespaces"),
    concurrency: int("concurrency"),
    helmSample: int("helm-sample"),
    helmTimeoutSeconds: int("helm-timeout"),
    observationBudgetSeconds: int("budget-minutes") * 60,
    ...(values.profile !== undefined && { profileDir: values.profile, heapSnapshot: values["heap-snapshot"] === true }),
    log,
  });
  const document = {
    machine: { cores: cpus().length, memoryBytes: totalmem() },
    versions: {
      kubernetes: binaries.kubernetesVersion,
      kwok: /kwok-(v[^/]+)/.exec(binaries.kwok)?.[1],
      natsServer: /nats-server-(v[^/]+)/.exec(binaries.natsServer)?.[1],
      helm: result.helm?.helmVersion,
    },
    harness: existing ? { cluster: "existing" } : harness,
    wallSeconds: Math.round((Date.now() - wallStart) / 1000),
    ...result,
  };
  console.log(JSON.stringify(document, null, 2));
  log(`written to ${writeResults(values.results, document)}`);
} finally {
  await cluster?.stop();
}

// `node bench/cluster/beside.ts [--kubeconfig K --nats-url U] [--samples N] [--timeout S]`:
// `stagewatch observe` in local mode beside the tools it replaces, on the same cluster in one run:
// observe in service mode (a `stagewatch serve` of its own), `helm install --wait=watcher` (Helm 4,
// test/cluster/build-helm.sh) and `kubectl rollout status` (for the Job, `kubectl wait
// --for=condition=complete`, what a pipeline without stagewatch runs), each on objects of its own,
// for a healthy Deployment, one whose pods end in ImagePullBackOff and a Job whose pod fails.
// Measured as bench/cluster/helmSample.ts measures Helm: the time from the decisive event (the
// benchmark's own watches: rollout complete, the first pod waiting in ImagePullBackOff, the Job's
// pod failed) to the tool's exit, and the API requests of each tool, exactly (apiRequests.ts: a
// ServiceAccount and FlowSchemas per tool). Helm's count includes its own writes (it applies);
// the others' objects are applied by the benchmark. Writes bench/results/local-beside.json.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { AppsV1Api, BatchV1Api, CoreV1Api, type V1Deployment, type V1Job, type V1Pod } from "@kubernetes/client-node";
import { ensureHelm } from "../../test/cluster/helm.ts";
import { buildOrReuseBinaries } from "../../test/cluster/binaries.ts";
import { loadKubeConfig } from "../../test/cluster/kubeJson.ts";
import { startLocalCluster } from "../../test/cluster/local-cluster.ts";
import { compileStagewatch, scratchDir, startServe, writeManifest } from "../../test/cluster/stagewatch.ts";
import { writeResults } from "../support/results.ts";
import { difference, setUpAccounting, sum, type Counts } from "./apiRequests.ts";
import { latencies, rolledOut, watchDecisive, type Latencies } from "./scale.ts";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    "nats-url": { type: "string" },
    samples: { type: "string", default: "3" },
    timeout: { type: "string", default: "20" },
  },
});
const samples = Number(values.samples);
const timeoutSeconds = Number(values.timeout);
const log = (line: string) => process.stderr.write(`bench local-beside: ${line}\n`);

const scenarios = ["healthy", "imagePullBackOff", "failingJob"] as const;
type Scenario = (typeof scenarios)[number];
const tools = ["observeLocal", "observeService", "helmWatcher", "kubectlRolloutStatus"] as const;
type ToolName = (typeof tools)[number];

const dir = scratchDir("bench-local-beside");
const run = randomBytes(3).toString("hex");
const existing = values.kubeconfig !== undefined && values["nats-url"] !== undefined;
const binaries = buildOrReuseBinaries();
const cluster = existing ? undefined : await startLocalCluster({ stateDir: join(dir, "cluster"), binaries, log });
const kubeconfigPath = values.kubeconfig ?? cluster!.kubeconfigPath;
const natsUrl = values["nats-url"] ?? cluster!.natsUrl;
const admin = loadKubeConfig(kubeconfigPath);
const namespace = `bench-beside-${run}`;

function spawnTimed(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; exitAtMs: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { PATH: process.env["PATH"] ?? "", HOME: dir, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, exitAtMs: performance.now(), output }));
  });
}

const labels = (name: string) => ({ "bench-run": run, "bench-release": name });
function manifest(scenario: Scenario, name: string): object {
  const fault = scenario === "imagePullBackOff" ? { "stagewatch.io/fault": "ImagePullBackOff" } : scenario === "failingJob" ? { "stagewatch.io/fault": "Error" } : {};
  const template = { metadata: { labels: { ...labels(name), ...fault } }, spec: { containers: [{ name: "app", image: "registry.example/bench:1" }] } };
  return scenario === "failingJob"
    ? { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace, labels: labels(name) }, spec: { backoffLimit: 0, template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } } } }
    : { apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace, labels: labels(name) }, spec: { replicas: 2, selector: { matchLabels: { "bench-release": name } }, template } };
}

async function applyAsAdmin(object: object): Promise<void> {
  const typed = object as { kind: string };
  if (typed.kind === "Job") await admin.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: object as V1Job });
  else await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: object as V1Deployment });
}

const count = (values: readonly string[]) => values.reduce<Record<string, number>>((counts, v) => ({ ...counts, [v]: (counts[v] ?? 0) + 1 }), {});

try {
  log(`compiling stagewatch; namespace ${namespace}`);
  const compiled = await compileStagewatch(join(dir, "build"));
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  const accounting = await setUpAccounting(admin, run, namespace, dir, { "observe-local": "read", stagewatch: "read", kubectl: "read", "helm-watcher": "admin" });
  const prefix = `beside${run}`;
  const service = await startServe(compiled.cli, { kubeconfigPath: accounting.tools["stagewatch"]!.kubeconfigPath, natsUrl, dir, args: [`--subject-prefix=${prefix}`, "--log-level=warn"] });
  const helm = await ensureHelm();
  const kubectl = binaries.kubectl;
  const chartDir = join(dir, "chart");
  mkdirSync(join(chartDir, "templates"), { recursive: true });
  writeFileSync(join(chartDir, "Chart.yaml"), "apiVersion: v2\nname: beside\nversion: 0.1.0\n");
  writeFileSync(join(chartDir, "templates", "workload.yaml"), "{{ .Values.manifest | toJson }}\n");
  const releaseOf = (object: { metadata?: { labels?: Record<string, string> } }) => object.metadata?.labels?.["bench-release"] ?? "";
  const selector = `bench-run=${run},bench-release`;
  const watches = [
    await watchDecisive<V1Deployment>(admin, "/apis/apps/v1/deployments", selector, rolledOut, releaseOf),
    await watchDecisive<V1Pod>(admin, "/api/v1/pods", selector, (pod) => pod.status?.phase === "Failed" || (pod.status?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason === "ImagePullBackOff"), releaseOf),
  ];
  const decisiveAt = (name: string) => {
    const times = watches.map((w) => w.times.get(name)).filter((t) => t !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  };

  const shortName: Record<ToolName, string> = { observeLocal: "local", observeService: "service", helmWatcher: "helm", kubectlRolloutStatus: "kubectl" };
  const account: Record<ToolName, string> = { observeLocal: "observe-local", observeService: "stagewatch", helmWatcher: "helm-watcher", kubectlRolloutStatus: "kubectl" };
  /** One tool on one object, to its exit. */
  async function runTool(tool: ToolName, scenario: Scenario, name: string) {
    const object = manifest(scenario, name);
    const kind = scenario === "failingJob" ? "job" : "deployment";
    const kubeconfig = accounting.tools[account[tool]]!.kubeconfigPath;
    if (tool === "helmWatcher") {
      const values = join(dir, `${name}.values.json`);
      writeFileSync(values, JSON.stringify({ manifest: object }));
      const helmHome = join(dir, "helm-home");
      return spawnTimed(helm, ["install", name, chartDir, "-n", namespace, "-f", values, "--wait=watcher", "--wait-for-jobs", `--timeout=${timeoutSeconds}s`], {
        KUBECONFIG: kubeconfig, HELM_CACHE_HOME: join(helmHome, "cache"), HELM_CONFIG_HOME: join(helmHome, "config"), HELM_DATA_HOME: join(helmHome, "data"),
      });
    }
    await applyAsAdmin(object);
    if (tool === "kubectlRolloutStatus") {
      const args = kind === "job" ? ["wait", "--for=condition=complete", `job/${name}`, `--timeout=${timeoutSeconds}s`] : ["rollout", "status", `deployment/${name}`, `--timeout=${timeoutSeconds}s`];
      return spawnTimed(kubectl, ["-n", namespace, ...args], { KUBECONFIG: kubeconfig });
    }
    const file = writeManifest(join(dir, `${name}.yaml`), [object]);
    const observe = [compiled.cli, "observe", "-f", file, "--deployment", "beside", "--timeout", `${timeoutSeconds}s`, "--progress", "plain"];
    return tool === "observeLocal"
      ? spawnTimed(process.execPath, observe, { KUBECONFIG: kubeconfig })
      : spawnTimed(process.execPath, [...observe, "--subject-prefix", prefix], { NATS_URL: natsUrl, KUBECONFIG: kubeconfig });
  }

  const results: Record<string, unknown> = {};
  try {
    for (const scenario of scenarios) {
      const before = await accounting.counts();
      const runs: { tool: ToolName; name: string; code: number | null; exitAtMs: number; output: string }[] = [];
      for (let sample = 0; sample < samples; sample++) {
        log(`${scenario}, sample ${sample + 1}/${samples}: the four tools at once`);
        runs.push(
          ...(await Promise.all(
            tools.map(async (tool) => {
              const name = `${shortName[tool]}-${scenario.slice(0, 3).toLowerCase()}-${sample}`;
              return { tool, name, ...(await runTool(tool, scenario, name)) };
            }),
          )),
        );
      }
      const after = await accounting.counts();
      results[scenario] = Object.fromEntries(
        tools.map((tool) => {
          const mine = runs.filter((r) => r.tool === tool);
          const requests: Counts = difference(after[account[tool]]!, before[account[tool]]!);
          const afterDecisive: Latencies = latencies(mine.flatMap((r) => (decisiveAt(r.name) === undefined ? [] : [r.exitAtMs - decisiveAt(r.name)!])));
          return [
            tool,
            {
              exits: count(mine.map((r) => `exit ${r.code}`)),
              exitAfterDecisiveEvent: afterDecisive,
              apiRequestsPerRun: Math.round((sum(requests) / mine.length) * 10) / 10,
              apiRequests: requests,
              lastOutput: mine.at(-1)?.output.trim().split("\n").slice(-2).join(" | "),
            },
          ];
        }),
      );
    }
  } finally {
    for (const watch of watches) watch.stop();
    await service.process.stop();
    await accounting.cleanup();
    await admin.makeApiClient(CoreV1Api).deleteNamespace({ name: namespace }).catch(() => undefined);
  }
  const document = {
    samples,
    timeoutSeconds,
    notes: {
      observeService: "apiRequests are the service's own during the scenario (shared informers, all observations); the observe CLI itself makes none",
      helmWatcher: "apiRequests include Helm's writes (it applies the release); the others' objects were applied by the benchmark",
      kubectlRolloutStatus: "for the Job: kubectl wait --for=condition=complete (kubectl rollout status does not take Jobs)",
    },
    versions: { kubernetes: binaries.kubernetesVersion },
    results,
  };
  console.log(JSON.stringify(document, null, 2));
  log(`written to ${writeResults("local-beside", document)}`);
} finally {
  await cluster?.stop();
}

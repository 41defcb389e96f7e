// `./dev.sh bench beside [--kubeconfig K --nats-url U] [--samples N] [--timeout S] [--arm-seconds A] [--stagger-seconds G]`:
// `stagewatch observe` in local mode beside the tools it replaces, on the same cluster in one run:
// observe in service mode (a `stagewatch serve` of its own), `helm install --wait=watcher` (Helm 4,
// test/cluster/build-helm.sh) and `kubectl rollout status` (for the Job, `kubectl wait
// --for=condition=complete`, what a pipeline without stagewatch runs), each on objects of its own,
// for a healthy Deployment, one whose pods end in ImagePullBackOff and a Job whose pod fails.
// Measured as bench/cluster/helmSample.ts measures Helm: the time from the decisive event (the
// benchmark's own watches: rollout complete, the first pod waiting in ImagePullBackOff, the Job's
// FailureTarget or Failed condition) to the tool's exit, and the API requests of each tool, exactly (apiRequests.ts: a
// ServiceAccount and FlowSchemas per tool). Helm's count includes its own writes (it applies);
// the others' objects are applied by the benchmark. Writes bench/results/local-beside.json.
//
// Every tool is watching before its decisive event: the pods are created behind a scheduling gate
// (spec.schedulingGates: the scheduler leaves them Pending), the tools are started on them, and the
// benchmark lifts the gates once every tool is under way (observe has said "observing", the others
// have had --arm-seconds), one tool's at a time (--stagger-seconds apart). Without the gate a kwok
// rollout decides within about a second of the apply, before a CLI started after the apply has
// loaded, and the figure measures start-up (kept apart: `startUp`, spawn to "observing ...", for
// observe).
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
import { benchGate, count, observeTimings, spawnTimed, ungate, verdictMessageOf, type TimedTool, type ToolExit } from "./toolRuns.ts";
import { benchSigningKey } from "./benchSigningKey.ts";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    "nats-url": { type: "string" },
    samples: { type: "string", default: "3" },
    timeout: { type: "string", default: "20" },
    "arm-seconds": { type: "string", default: "4" },
    "stagger-seconds": { type: "string", default: "2" },
  },
});
const samples = Number(values.samples);
const timeoutSeconds = Number(values.timeout);
const armMs = Number(values["arm-seconds"]) * 1000;
const staggerMs = Number(values["stagger-seconds"]) * 1000;
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

const labels = (name: string) => ({ "bench-run": run, "bench-release": name });
function manifest(scenario: Scenario, name: string): object {
  const fault = scenario === "imagePullBackOff" ? { "stagewatch.io/fault": "ImagePullBackOff" } : scenario === "failingJob" ? { "stagewatch.io/fault": "Error" } : {};
  const template = {
    metadata: { labels: { ...labels(name), ...fault } },
    spec: { schedulingGates: [benchGate], containers: [{ name: "app", image: "registry.example/bench:1" }] },
  };
  return scenario === "failingJob"
    ? { apiVersion: "batch/v1", kind: "Job", metadata: { name, namespace, labels: labels(name) }, spec: { backoffLimit: 0, template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } } } }
    : { apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace, labels: labels(name) }, spec: { replicas: 2, selector: { matchLabels: { "bench-release": name } }, template } };
}

async function applyAsAdmin(object: object): Promise<void> {
  const typed = object as { kind: string };
  if (typed.kind === "Job") await admin.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: object as V1Job });
  else await admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: object as V1Deployment });
}

try {
  log(`compiling stagewatch; namespace ${namespace}`);
  const compiled = await compileStagewatch(join(dir, "build"));
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
  const accounting = await setUpAccounting(admin, run, namespace, dir, { "observe-local": "read", stagewatch: "read", kubectl: "read", "helm-watcher": "admin" });
  const prefix = `beside${run}`;
  const signing = benchSigningKey(dir);
  const service = await startServe(compiled.cli, { kubeconfigPath: accounting.tools["stagewatch"]!.kubeconfigPath, natsUrl, dir, args: [`--subject-prefix=${prefix}`, `--signing-key=${signing.seedFile}`, "--log-level=warn"] });
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
    await watchDecisive<V1Pod>(admin, "/api/v1/pods", selector, (pod) => (pod.status?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason === "ImagePullBackOff"), releaseOf),
    // The Job's own word, not its pod's: the Job controller batches pod updates for a second
    // (syncJobBatchPeriod) before it writes FailureTarget and Failed, and no tool may call the
    // Job failed before it does (its backoffLimit or podFailurePolicy could still retry).
    await watchDecisive<V1Job>(admin, "/apis/batch/v1/jobs", selector, (job) => (job.status?.conditions ?? []).some((c) => (c.type === "FailureTarget" || c.type === "Failed") && c.status === "True"), releaseOf),
  ];
  const decisiveAt = (name: string) => {
    const times = watches.map((w) => w.times.get(name)).filter((t) => t !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  };

  const shortName: Record<ToolName, string> = { observeLocal: "local", observeService: "service", helmWatcher: "helm", kubectlRolloutStatus: "kubectl" };
  const account: Record<ToolName, string> = { observeLocal: "observe-local", observeService: "stagewatch", helmWatcher: "helm-watcher", kubectlRolloutStatus: "kubectl" };
  /** One tool on one object, started. */
  async function runTool(tool: ToolName, scenario: Scenario, name: string): Promise<TimedTool> {
    const object = manifest(scenario, name);
    const kind = scenario === "failingJob" ? "job" : "deployment";
    const kubeconfig = accounting.tools[account[tool]]!.kubeconfigPath;
    if (tool === "helmWatcher") {
      const values = join(dir, `${name}.values.json`);
      writeFileSync(values, JSON.stringify({ manifest: object }));
      const helmHome = join(dir, "helm-home");
      return spawnTimed(helm, ["install", name, chartDir, "-n", namespace, "-f", values, "--wait=watcher", "--wait-for-jobs", `--timeout=${timeoutSeconds}s`], {
        HOME: dir, KUBECONFIG: kubeconfig, HELM_CACHE_HOME: join(helmHome, "cache"), HELM_CONFIG_HOME: join(helmHome, "config"), HELM_DATA_HOME: join(helmHome, "data"),
      });
    }
    await applyAsAdmin(object);
    if (tool === "kubectlRolloutStatus") {
      const args = kind === "job" ? ["wait", "--for=condition=complete", `job/${name}`, `--timeout=${timeoutSeconds}s`] : ["rollout", "status", `deployment/${name}`, `--timeout=${timeoutSeconds}s`];
      return spawnTimed(kubectl, ["-n", namespace, ...args], { HOME: dir, KUBECONFIG: kubeconfig });
    }
    const file = writeManifest(join(dir, `${name}.yaml`), [object]);
    const observe = [compiled.cli, "observe", "-f", file, "--deployment", "beside", "--timeout", `${timeoutSeconds}s`, "--progress", "plain", "--json"];
    return tool === "observeLocal"
      ? spawnTimed(process.execPath, observe, { HOME: dir, KUBECONFIG: kubeconfig })
      : spawnTimed(process.execPath, [...observe, "--subject-prefix", prefix], { HOME: dir, NATS_URL: natsUrl, KUBECONFIG: kubeconfig, STAGEWATCH_VERIFY_KEY: signing.publicKey });
  }

  const results: Record<string, unknown> = {};
  try {
    for (const scenario of scenarios) {
      const before = await accounting.counts();
      const runs: ({ tool: ToolName; name: string } & ToolExit)[] = [];
      for (let sample = 0; sample < samples; sample++) {
        log(`${scenario}, sample ${sample + 1}/${samples}: the four tools at once, then the gates lifted`);
        const started = await Promise.all(
          tools.map(async (tool) => {
            const name = `${shortName[tool]}-${scenario.slice(0, 3).toLowerCase()}-${sample}`;
            return { tool, name, ...(await runTool(tool, scenario, name)) };
          }),
        );
        // observe says when its request is in; helm and kubectl get --arm-seconds to be watching.
        await Promise.all(started.map((run) => (run.tool.startsWith("observe") ? run.observing : undefined)));
        await new Promise((resolve) => setTimeout(resolve, armMs));
        // One tool's gate at a time, --stagger-seconds apart: four decisive events at one moment would
        // measure the four tools (and the service and nats-server) sharing the 2 cores at once.
        for (const run of started) {
          await ungate(admin, namespace, `bench-release=${run.name}`, scenario === "failingJob" ? 1 : 2);
          await new Promise((resolve) => setTimeout(resolve, staggerMs));
        }
        runs.push(...(await Promise.all(started.map(async ({ tool, name, exit }) => ({ tool, name, ...(await exit) })))));
      }
      const after = await accounting.counts();
      results[scenario] = Object.fromEntries(
        tools.map((tool) => {
          const mine = runs.filter((r) => r.tool === tool);
          const requests: Counts = difference(after[account[tool]]!, before[account[tool]]!);
          const afterDecisive = (at: (run: ToolExit) => number | undefined): Latencies =>
            latencies(mine.flatMap((r) => (decisiveAt(r.name) === undefined || at(r) === undefined ? [] : [at(r)! - decisiveAt(r.name)!])));
          return [
            tool,
            {
              exits: count(mine.map((r) => `exit ${r.code}`)),
              exitAfterDecisiveEvent: afterDecisive((r) => r.exitAtMs),
              ...(tool.startsWith("observe") && observeTimings(mine.map((r) => ({ ...r, decisiveAtMs: decisiveAt(r.name) })))),
              apiRequestsPerRun: Math.round((sum(requests) / mine.length) * 10) / 10,
              apiRequests: requests,
              lastOutput: tool.startsWith("observe") ? verdictMessageOf(mine.at(-1)?.stdout ?? "") : mine.at(-1)?.output.trim().split("\n").slice(-2).join(" | "),
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
    armSeconds: armMs / 1000,
    staggerSeconds: staggerMs / 1000,
    notes: {
      gate: "each tool was started on pods held by a scheduling gate, lifted once every tool was under way: exitAfterDecisiveEvent is the tool's reaction, not its start-up (startUp: observe's spawn to its 'observing' line)",
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

// Helm 4 beside stagewatch on the same releases, in the same run: a healthy Deployment, a
// Deployment whose pods end in ImagePullBackOff and a Job that fails, each installed by
// `helm install --wait=watcher` and `--wait=legacy` (with --wait-for-jobs) as a ServiceAccount
// per mode, while stagewatch observes the same objects. For each: the time from the decisive
// event (the benchmark's own watches: rollout complete, the first pod waiting in
// ImagePullBackOff, the Job's pod failed or its Failed condition, whichever came first) to Helm's exit and to stagewatch's verdict, the
// outcome each reported, and each mode's API requests per release.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeConfig, V1Deployment, V1Job, V1Pod } from "@kubernetes/client-node";
import type { NatsConnection } from "@nats-io/transport-node";
import { ensureHelm } from "../../test/cluster/helm.ts";
import { difference, sum, type Accounting, type Counts } from "./apiRequests.ts";
import { latencies, requestObservation, rolledOut, subscribeVerdicts, watchDecisive, type Latencies } from "./scale.ts";
import { count } from "./toolRuns.ts";

const scenarios = ["healthy", "imagePullBackOff", "failingJob"] as const;
type Scenario = (typeof scenarios)[number];
const modes = ["watcher", "legacy"] as const;

export interface HelmSampleOptions {
  admin: KubeConfig;
  accounting: Accounting;
  nc: NatsConnection;
  prefix: string;
  run: string;
  namespace: string;
  dir: string;
  sample: number;
  timeoutSeconds: number;
  helm?: string;
  log: (line: string) => void;
}

interface ToolOutcome {
  /** Exit code (Helm) or outcome (stagewatch), with how many releases had it. */
  outcomes: Record<string, number>;
  afterDecisiveEvent: Latencies;
}

export type HelmSampleResult = Record<
  (typeof modes)[number],
  { releases: number; apiRequestsPerRelease: number; apiRequests: Counts; scenarios: Record<Scenario, { helm: ToolOutcome; stagewatch: ToolOutcome }> }
> & { stagewatchApiRequestsDuringSample: Counts; helmVersion: string; timeoutSeconds: number };

const chart = (run: string) => ({
  "Chart.yaml": "apiVersion: v2\nname: bench\nversion: 0.1.0\n",
  "templates/workload.yaml": `{{- $labels := dict "bench-run" "${run}" "bench-release" .Release.Name }}
{{- if eq .Values.scenario "failingJob" }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}
  labels: {{ toJson $labels }}
spec:
  backoffLimit: 0
  template:
    metadata:
      labels: {{ toJson (merge (dict "stagewatch.io/fault" "Error") $labels) }}
    spec:
      restartPolicy: Never
      containers: [{name: job, image: registry.example/bench-job:1}]
{{- else }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels: {{ toJson $labels }}
spec:
  replicas: 2
  selector: {matchLabels: {bench-release: {{ .Release.Name }}}}
  template:
    metadata:
      labels: {{ toJson (eq .Values.scenario "imagePullBackOff" | ternary (merge (dict "stagewatch.io/fault" "ImagePullBackOff") $labels) $labels) }}
    spec:
      containers: [{name: app, image: registry.example/bench:1}]
{{- end }}
`,
});

function runHelm(helm: string, args: string[], kubeconfigPath: string, home: string): Promise<{ code: number | null; exitAtMs: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(helm, args, {
      env: { PATH: process.env["PATH"] ?? "", HOME: home, HELM_CACHE_HOME: join(home, "cache"), HELM_CONFIG_HOME: join(home, "config"), HELM_DATA_HOME: join(home, "data"), KUBECONFIG: kubeconfigPath },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, exitAtMs: performance.now(), output }));
  });
}

export async function runHelmSample(options: HelmSampleOptions): Promise<HelmSampleResult> {
  const helm = options.helm ?? (await ensureHelm());
  const helmVersion = (await runHelm(helm, ["version", "--short"], "/nonexistent", options.dir)).output.trim();
  const chartDir = join(options.dir, "bench-chart");
  for (const [file, text] of Object.entries(chart(options.run))) {
    mkdirSync(join(chartDir, file, ".."), { recursive: true });
    writeFileSync(join(chartDir, file), text);
  }
  const selector = `bench-run=${options.run},bench-release`;
  const releaseOf = (object: { metadata?: { labels?: Record<string, string> } }) => object.metadata?.labels?.["bench-release"] ?? "";
  const watches = [
    await watchDecisive<V1Deployment>(options.admin, "/apis/apps/v1/deployments", selector, rolledOut, releaseOf),
    // A Job's pod failing is decisive: the Job's Failed condition follows it (stagewatch fails the
    // Job on either; Helm waits for the condition).
    await watchDecisive<V1Pod>(
      options.admin,
      "/api/v1/pods",
      selector,
      (pod) => pod.status?.phase === "Failed" || (pod.status?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason === "ImagePullBackOff"),
      releaseOf,
    ),
    await watchDecisive<V1Job>(options.admin, "/apis/batch/v1/jobs", selector, (job) => (job.status?.conditions ?? []).some((c) => c.type === "Failed" && c.status === "True"), releaseOf),
  ];
  const decisiveAt = (release: string) => {
    const times = watches.map((w) => w.times.get(release)).filter((t) => t !== undefined);
    return times.length === 0 ? undefined : Math.min(...times);
  };
  const verdicts = subscribeVerdicts(options.nc, options.prefix);
  const stagewatchBefore = (await options.accounting.counts())["stagewatch"]!;
  const result: Partial<HelmSampleResult> = {};
  try {
    for (const mode of modes) {
      const tool = `helm-${mode}`;
      const before = (await options.accounting.counts())[tool]!;
      const releases = scenarios.flatMap((scenario) => Array.from({ length: options.sample }, (_, i) => ({ scenario, name: `${options.run}-${mode.slice(0, 1)}-${scenario.slice(0, 3).toLowerCase()}-${i}` })));
      options.log(`helm --wait=${mode}: ${releases.length} releases at once`);
      const runs = await Promise.all(
        releases.map(async ({ scenario, name }) => {
          const kind = scenario === "failingJob" ? { apiVersion: "batch/v1", kind: "Job" } : { apiVersion: "apps/v1", kind: "Deployment" };
          const observation = requestObservation(options.nc, options.prefix, {
            key: `${options.prefix}/helm/${name}`, deployment: "bench-helm", require: "healthy",
            timeoutSeconds: options.timeoutSeconds + 30, absentGraceSeconds: 60,
            resources: [{ ...kind, namespace: options.namespace, name }],
          });
          const helmRun = await runHelm(
            helm,
            ["install", name, chartDir, "-n", options.namespace, `--set=scenario=${scenario}`, `--wait=${mode}`, "--wait-for-jobs", `--timeout=${options.timeoutSeconds}s`],
            options.accounting.tools[tool]!.kubeconfigPath,
            join(options.dir, "helm-home"),
          );
          return { scenario, name, helmRun, observationId: await observation };
        }),
      );
      // stagewatch decides ImagePullBackOff and the failed Job long before Helm gives up; its
      // healthy verdicts may trail Helm's exit by a few milliseconds.
      const deadline = Date.now() + 30_000;
      while (runs.some((r) => !verdicts.has(r.observationId)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const after = (await options.accounting.counts())[tool]!;
      const apiRequests = difference(after, before);
      const perScenario = Object.fromEntries(
        scenarios.map((scenario) => {
          const mine = runs.filter((r) => r.scenario === scenario);
          const after = (at: number | undefined, name: string) => (at === undefined || decisiveAt(name) === undefined ? [] : [at - decisiveAt(name)!]);
          return [
            scenario,
            {
              helm: { outcomes: count(mine.map((r) => `exit ${r.helmRun.code}`)), afterDecisiveEvent: latencies(mine.flatMap((r) => after(r.helmRun.exitAtMs, r.name))) },
              stagewatch: {
                outcomes: count(mine.map((r) => verdicts.get(r.observationId)?.outcome ?? "no verdict")),
                afterDecisiveEvent: latencies(mine.flatMap((r) => after(verdicts.get(r.observationId)?.atMs, r.name))),
              },
            },
          ];
        }),
      ) as Record<Scenario, { helm: ToolOutcome; stagewatch: ToolOutcome }>;
      result[mode] = { releases: releases.length, apiRequestsPerRelease: Math.round((sum(apiRequests) / releases.length) * 10) / 10, apiRequests, scenarios: perScenario };
    }
  } finally {
    for (const watch of watches) watch.stop();
  }
  const stagewatchAfter = (await options.accounting.counts())["stagewatch"]!;
  return { ...(result as HelmSampleResult), stagewatchApiRequestsDuringSample: difference(stagewatchAfter, stagewatchBefore), helmVersion, timeoutSeconds: options.timeoutSeconds };
}

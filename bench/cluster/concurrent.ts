// `./dev.sh bench concurrent [--sizes 5,20,50] [--timeout S] [--arm-seconds A] [--rounds R] [--kubeconfig K --nats-url U]`
// (issue 37, section 1): N releases started together, for each of the waiters a pipeline picks,
// each tool on releases and namespaces of its own: `helm upgrade --install --wait=watcher
// --wait-for-jobs` (N processes), `kubectl rollout status` (N processes; then `kubectl wait
// --for=condition=complete` for a release's Job, as a pipeline without stagewatch runs it),
// `stagewatch observe` in service mode (N processes, one `stagewatch serve`) and in local mode
// (N processes, each listing and watching its own namespace). A release is a Deployment of 3
// replicas and a ConfigMap, and for every fifth a bootstrap Job; every tenth fails, by turns its
// Deployment's pods in ImagePullBackOff and its Job failing. Writes bench/results/concurrent.json.
//
// One round is one tool at one N, alone on the cluster, so the API server's CPU seconds and the
// watches it holds can be put down to that tool; the tools take turns round by round (the order
// rotates with each N and each repeat), so a drift in the machine's load is spread over all of them.
// As in beside.ts, every pod is created behind a scheduling gate, the tools are started and armed,
// and only then are the gates lifted (all N releases at once: that is the concurrency measured), so
// the time from each release's decisive event (the benchmark's own watches) to its tool's exit is
// the tool's reaction, not its start-up.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ApiException, AppsV1Api, BatchV1Api, CoreV1Api, type V1ConfigMap, type V1Deployment, type V1Job, type V1Pod } from "@kubernetes/client-node";
import { buildOrReuseBinaries } from "../../test/cluster/binaries.ts";
import { ensureHelm } from "../../test/cluster/helm.ts";
import { loadKubeConfig } from "../../test/cluster/kubeJson.ts";
import { startLocalCluster } from "../../test/cluster/local-cluster.ts";
import { compileStagewatch, scratchDir, startServe, writeManifest } from "../../test/cluster/stagewatch.ts";
import { writeResults } from "../support/results.ts";
import { difference, setUpAccounting, sum, type ApiServerLoad, type Counts } from "./apiRequests.ts";
import { parseClusterBenchArgs } from "./benchArgs.ts";
import { latencies, rolledOut, watchDecisive } from "./scale.ts";
import { benchGate, count, liftGate, observeTimings, spawnTimed, verdictMessageOf, verdictOutcomeOf, type TimedTool, type ToolExit } from "./toolRuns.ts";
import { benchSigningKey } from "./benchSigningKey.ts";

const usage = `Usage: ./dev.sh bench concurrent [flags]
  --sizes LIST          releases started together in a round, comma-separated (default 5,20,50)
  --rounds R            rounds of each tool at each size (default 1)
  --tools LIST          which tools, comma-separated (default helmWatcher,kubectlRolloutStatus,observeService,observeLocal)
  --timeout SEC         every tool's --timeout: what Helm and kubectl wait out on a failure. It must
                        outlast the wait for the slowest start-up before the gates are lifted: an
                        observe budget starts when that process is watching, and 50 local-mode
                        processes took 31 to 47 s to get there on 2 cores (default 90)
  --arm-seconds A       after a round's pods exist, how long Helm and kubectl are given to be
                        watching before the gates are lifted (observe says when it is) (default 4)
  --client-qps Q        kube-controller-manager's and kube-scheduler's --kube-api-qps, so that 50
                        releases' pods are created and scheduled together (default 200)
  --kubeconfig PATH, --nats-url URL   an existing cluster (admin) and NATS instead of a local one
`;
const { values, wholeNumber, wholeNumbers } = parseClusterBenchArgs(usage, {
  sizes: { type: "string", default: "5,20,50" },
  rounds: { type: "string", default: "1" },
  tools: { type: "string", default: "helmWatcher,kubectlRolloutStatus,observeService,observeLocal" },
  timeout: { type: "string", default: "90" },
  "arm-seconds": { type: "string", default: "4" },
  "client-qps": { type: "string", default: "200" },
});
const sizes = wholeNumbers("sizes", 1);
const rounds = wholeNumber("rounds", 1);
const timeoutSeconds = wholeNumber("timeout", 1);
const armMs = wholeNumber("arm-seconds") * 1000;
const clientQps = wholeNumber("client-qps", 1);
const log = (line: string) => process.stderr.write(`bench concurrent: ${line}\n`);

const allTools = ["helmWatcher", "kubectlRolloutStatus", "observeService", "observeLocal"] as const;
type ToolName = (typeof allTools)[number];
const tools = values.tools.split(",").map((name) => {
  if (!(allTools as readonly string[]).includes(name)) {
    process.stderr.write(`--tools: ${name} is not one of ${allTools.join(", ")}\n\n${usage}`);
    process.exit(2);
  }
  return name as ToolName;
});
/** The account (ServiceAccount and FlowSchemas) whose requests are the tool's. */
const account: Record<ToolName, string> = { helmWatcher: "helm-watcher", kubectlRolloutStatus: "kubectl", observeService: "stagewatch", observeLocal: "observe-local" };
const shortName: Record<ToolName, string> = { helmWatcher: "helm", kubectlRolloutStatus: "kubectl", observeService: "service", observeLocal: "local" };

type Failure = "imagePullBackOff" | "failedJob";
interface Release {
  name: string;
  namespace: string;
  hasJob: boolean;
  failure: Failure | undefined;
}

/**
 * The i-th release of a round: a Job in every fifth (i = 0, 5, 10, ...) and a failure in every
 * tenth (i = 0, 10, 20, ...), ImagePullBackOff and a failed Job by turns. The first failure is
 * the Deployment's, so the smallest round (one failure) still fails on the kind every tool watches.
 */
function releaseAt(run: string, tool: ToolName, size: number, round: number, i: number): Release {
  const name = `${shortName[tool]}-${size}-${round}-${i}`;
  const failure: Failure | undefined = i % 10 !== 0 ? undefined : (i / 10) % 2 === 0 ? "imagePullBackOff" : "failedJob";
  return { name, namespace: `cc-${run}-${name}`, hasJob: i % 5 === 0, failure };
}

const podsOf = (release: Release) => 3 + (release.hasJob ? 1 : 0);

/** The release's objects, as Helm's chart renders them and as the benchmark applies them for the other tools. */
function objectsOf(run: string, release: Release): object[] {
  const { name, namespace } = release;
  const labels = { "bench-run": run, "bench-release": name };
  // kwok's stages read the fault label (test/cluster/faults.ts): the pods never pull their image,
  // or the Job's container exits 1.
  const podLabels = (fault: string | undefined) => ({ ...labels, ...(fault !== undefined && { "stagewatch.io/fault": fault }) });
  const configMap: V1ConfigMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data: { "release.txt": name } };
  const deployment: V1Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels },
    spec: {
      replicas: 3,
      selector: { matchLabels: { "bench-release": name } },
      template: {
        metadata: { labels: podLabels(release.failure === "imagePullBackOff" ? "ImagePullBackOff" : undefined) },
        spec: { schedulingGates: [benchGate], containers: [{ name: "app", image: "registry.example/bench:1", envFrom: [{ configMapRef: { name } }] }] },
      },
    },
  };
  const job: V1Job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${name}-bootstrap`, namespace, labels },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: podLabels(release.failure === "failedJob" ? "Error" : undefined) },
        spec: { schedulingGates: [benchGate], restartPolicy: "Never", containers: [{ name: "bootstrap", image: "registry.example/bench-job:1" }] },
      },
    },
  };
  return [configMap, deployment, ...(release.hasJob ? [job] : [])];
}

const dir = scratchDir("bench-concurrent");
const run = randomBytes(3).toString("hex");
const existing = values.kubeconfig !== undefined && values["nats-url"] !== undefined;
const binaries = buildOrReuseBinaries();
const cluster = existing ? undefined : await startLocalCluster({ stateDir: join(dir, "cluster"), binaries, log, clientQps });
const admin = loadKubeConfig(values.kubeconfig ?? cluster!.kubeconfigPath);
const natsUrl = values["nats-url"] ?? cluster!.natsUrl;
const core = admin.makeApiClient(CoreV1Api);
const accountsNamespace = `cc-${run}-accounts`;

async function createNamespaces(names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => core.createNamespace({ body: { metadata: { name, labels: { "bench-run": run } } } })));
  // A pod is refused until its namespace's default ServiceAccount exists; waiting here keeps that
  // retry out of the measured round.
  for (const namespace of names) {
    while ((await core.listNamespacedServiceAccount({ namespace })).items.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deletes a round's namespaces and waits until they are gone, so their teardown does not load the next round. */
async function deleteNamespaces(names: readonly string[]): Promise<void> {
  await Promise.all(names.map((name) => core.deleteNamespace({ name }).catch(() => undefined)));
  const deadline = performance.now() + 120_000;
  const remaining = new Set(names);
  while (remaining.size > 0 && performance.now() < deadline) {
    const present = new Set((await core.listNamespace({ labelSelector: `bench-run=${run}` })).items.map((ns) => ns.metadata!.name!));
    for (const name of remaining) if (!present.has(name)) remaining.delete(name);
    if (remaining.size > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (remaining.size > 0) log(`${remaining.size} namespaces still terminating after 120 s; going on`);
}

async function applyAsAdmin(objects: readonly object[]): Promise<void> {
  for (const object of objects) {
    const { kind, metadata } = object as { kind: string; metadata: { namespace: string } };
    const namespace = metadata.namespace;
    await createOnce(() => {
      if (kind === "ConfigMap") return core.createNamespacedConfigMap({ namespace, body: object as V1ConfigMap });
      if (kind === "Job") return admin.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: object as V1Job });
      return admin.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: object as V1Deployment });
    });
  }
}

/**
 * A create, tried again when the connection failed under it: with 50 releases applied at once the
 * API server has closed the client's HTTP/2 connection mid-request ("other side closed"), which
 * ended a whole run. The first try may have landed, so a retry answered 409 AlreadyExists is done.
 * An answer from the API server (any ApiException) on the first try is not retried.
 */
async function createOnce(create: () => Promise<unknown>, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await create();
      return;
    } catch (error) {
      if (error instanceof ApiException) {
        if (attempt > 1 && error.code === 409) return;
        throw error;
      }
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

try {
  log(`compiling stagewatch; run ${run}`);
  const compiled = await compileStagewatch(join(dir, "build"));
  const helm = await ensureHelm();
  await core.createNamespace({ body: { metadata: { name: accountsNamespace } } });
  const accounting = await setUpAccounting(admin, run, accountsNamespace, dir, { "helm-watcher": "admin", kubectl: "read", stagewatch: "read", "observe-local": "read" });
  const kubeconfigOf = (tool: ToolName) => accounting.tools[account[tool]]!.kubeconfigPath;
  const prefix = `concurrent${run}`;
  const signing = benchSigningKey(dir);
  const service = await startServe(compiled.cli, { kubeconfigPath: kubeconfigOf("observeService"), natsUrl, dir, args: [`--subject-prefix=${prefix}`, `--signing-key=${signing.seedFile}`, "--log-level=warn"] });

  const chartDir = join(dir, "chart");
  mkdirSync(join(chartDir, "templates"), { recursive: true });
  writeFileSync(join(chartDir, "Chart.yaml"), "apiVersion: v2\nname: concurrent\nversion: 0.1.0\n");
  writeFileSync(join(chartDir, "templates", "release.yaml"), "{{- range .Values.objects }}\n---\n{{ toJson . }}\n{{- end }}\n");
  const helmHome = join(dir, "helm-home");

  const releaseOf = (object: { metadata?: { labels?: Record<string, string> } }) => object.metadata?.labels?.["bench-release"] ?? "";
  const selector = `bench-run=${run},bench-release`;
  const jobCondition = (types: readonly string[]) => (job: V1Job) => (job.status?.conditions ?? []).some((c) => types.includes(c.type) && c.status === "True");
  // The benchmark's own watches, by release. A healthy release is decided when its last part is
  // (the rollout complete, and the Job's Complete condition); a failing one at its failure's first
  // sign: the first pod waiting in ImagePullBackOff, or the Job's FailureTarget or Failed condition
  // (the Job's own word, not its pod's: the Job controller could still retry, as in beside.ts).
  const rollouts = await watchDecisive<V1Deployment>(admin, "/apis/apps/v1/deployments", selector, rolledOut, releaseOf);
  const pullFailures = await watchDecisive<V1Pod>(admin, "/api/v1/pods", selector, (pod) => (pod.status?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason === "ImagePullBackOff"), releaseOf);
  const jobsComplete = await watchDecisive<V1Job>(admin, "/apis/batch/v1/jobs", selector, jobCondition(["Complete"]), releaseOf);
  const jobsFailed = await watchDecisive<V1Job>(admin, "/apis/batch/v1/jobs", selector, jobCondition(["FailureTarget", "Failed"]), releaseOf);
  const watches = [rollouts, pullFailures, jobsComplete, jobsFailed];
  const decisiveAt = (release: Release): number | undefined => {
    if (release.failure === "imagePullBackOff") return pullFailures.times.get(release.name);
    if (release.failure === "failedJob") return jobsFailed.times.get(release.name);
    const parts = [rollouts.times.get(release.name), ...(release.hasJob ? [jobsComplete.times.get(release.name)] : [])];
    return parts.some((t) => t === undefined) ? undefined : Math.max(...(parts as number[]));
  };

  /** One tool on one release, started (for Helm: applying it too). */
  async function start(tool: ToolName, release: Release): Promise<TimedTool> {
    const objects = objectsOf(run, release);
    const env = { HOME: dir, KUBECONFIG: kubeconfigOf(tool) };
    if (tool === "helmWatcher") {
      const valuesFile = join(dir, `${release.name}.values.json`);
      writeFileSync(valuesFile, JSON.stringify({ objects }));
      return spawnTimed(helm, ["upgrade", "--install", release.name, chartDir, "-n", release.namespace, "-f", valuesFile, "--wait=watcher", "--wait-for-jobs", `--timeout=${timeoutSeconds}s`], {
        ...env, HELM_CACHE_HOME: join(helmHome, "cache"), HELM_CONFIG_HOME: join(helmHome, "config"), HELM_DATA_HOME: join(helmHome, "data"),
      });
    }
    await applyAsAdmin(objects);
    if (tool === "kubectlRolloutStatus") return kubectlPipeline(release, env);
    const file = writeManifest(join(dir, `${release.name}.yaml`), objects);
    const observe = [compiled.cli, "observe", "-f", file, "--deployment", release.name, "--timeout", `${timeoutSeconds}s`, "--progress", "plain", "--json"];
    return tool === "observeLocal"
      ? spawnTimed(process.execPath, observe, env)
      : spawnTimed(process.execPath, [...observe, "--subject-prefix", prefix], { ...env, NATS_URL: natsUrl, STAGEWATCH_VERIFY_KEY: signing.publicKey });
  }

  /**
   * What a pipeline without stagewatch runs for a release: `kubectl rollout status`, then, if it
   * passed and the release has a Job, `kubectl wait --for=condition=complete` (rollout status does
   * not take Jobs). Its exit is the last command's.
   */
  function kubectlPipeline(release: Release, env: { HOME: string; KUBECONFIG: string }): TimedTool {
    const rollout = spawnTimed(binaries.kubectl, ["-n", release.namespace, "rollout", "status", `deployment/${release.name}`, `--timeout=${timeoutSeconds}s`], env);
    const exit = rollout.exit.then(async (first): Promise<ToolExit> => {
      if (first.code !== 0 || !release.hasJob) return first;
      const second = await spawnTimed(binaries.kubectl, ["-n", release.namespace, "wait", "--for=condition=complete", `job/${release.name}-bootstrap`, `--timeout=${timeoutSeconds}s`], env).exit;
      return { ...second, spawnedAtMs: first.spawnedAtMs, output: first.output + second.output };
    });
    return { observing: rollout.observing, exit };
  }

  /**
   * The round's pods, once every release has all of its own: one list over the run's label (from
   * the API server's watch cache) every 250 ms, not one per release, so that waiting at N = 50
   * does not itself load the API server whose CPU the round measures.
   */
  async function allPodsCreated(releases: readonly Release[]): Promise<{ namespace: string; name: string }[]> {
    const names = new Set(releases.map((r) => r.name));
    const deadline = performance.now() + 120_000;
    for (;;) {
      const pods = (await core.listPodForAllNamespaces({ labelSelector: `bench-run=${run},bench-release` })).items.filter((pod) => names.has(releaseOf(pod)));
      const created = count(pods.map(releaseOf));
      if (releases.every((r) => (created[r.name] ?? 0) >= podsOf(r))) return pods.map((pod) => ({ namespace: pod.metadata!.namespace!, name: pod.metadata!.name! }));
      if (performance.now() > deadline) throw new Error(`pods not all created after 120 s: ${JSON.stringify(created)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** One round: `size` releases of one tool, started together, gates lifted together. */
  async function runRound(tool: ToolName, size: number, round: number) {
    const releases = Array.from({ length: size }, (_, i) => releaseAt(run, tool, size, round, i));
    await createNamespaces(releases.map((r) => r.namespace));
    try {
      return await measureRound(tool, size, releases);
    } finally {
      await deleteNamespaces(releases.map((r) => r.namespace));
    }
  }

  async function measureRound(tool: ToolName, size: number, releases: readonly Release[]) {
    const before = { requests: (await accounting.counts())[account[tool]]!, apiServer: await accounting.apiServer(), atMs: performance.now() };
    const started = await Promise.all(releases.map(async (release) => ({ release, ...(await start(tool, release)) })));
    // observe says when its request is in; Helm and kubectl are given --arm-seconds once every
    // release's pods exist (for Helm, that is after its apply).
    const pods = await allPodsCreated(releases);
    if (tool.startsWith("observe")) await Promise.all(started.map(({ observing }) => observing));
    await new Promise((resolve) => setTimeout(resolve, armMs));
    const armed = await accounting.apiServer();
    log(`${tool}, N=${size}: ${armed.watches - before.apiServer.watches} watches added; lifting ${size} releases' gates`);
    // Every gate at once, a few requests in flight at a time: the releases are decided together.
    const queue = [...pods];
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let pod = queue.shift(); pod !== undefined; pod = queue.shift()) await liftGate(admin, pod.namespace, pod.name);
    }));
    const exits = await Promise.all(started.map(async ({ release, exit }) => ({ release, ...(await exit) })));
    const after = { requests: (await accounting.counts())[account[tool]]!, apiServer: await accounting.apiServer(), atMs: performance.now() };
    return summarize(tool, size, exits, before, armed, after);
  }

  function summarize(
    tool: ToolName,
    size: number,
    exits: readonly ({ release: Release } & ToolExit)[],
    before: { requests: Counts; apiServer: ApiServerLoad; atMs: number },
    armed: ApiServerLoad,
    after: { requests: Counts; apiServer: ApiServerLoad; atMs: number },
  ) {
    const reaction = (mine: typeof exits) => latencies(mine.flatMap((r) => (decisiveAt(r.release) === undefined ? [] : [r.exitAtMs - decisiveAt(r.release)!])));
    // A wrong answer: exit 0 for a failing release, or any other exit for a healthy one (a healthy
    // release timed out counts: the tool said it failed).
    const wrong = exits.filter((r) => (r.code === 0) !== (r.release.failure === undefined));
    const requests = difference(after.requests, before.requests);
    return {
      tool,
      releases: size,
      exits: count(exits.map((r) => `${r.release.failure ?? "healthy"}: exit ${r.code}`)),
      wrongAnswers: wrong.length,
      wrong: wrong.map((r) => ({
        release: r.release.name, failure: r.release.failure ?? "none", code: r.code,
        ...(tool.startsWith("observe") && { outcome: verdictOutcomeOf(r.stdout) }),
        said: tool.startsWith("observe") ? verdictMessageOf(r.stdout) : r.output.trim().split("\n").slice(-2).join(" | "),
      })),
      undecided: exits.filter((r) => decisiveAt(r.release) === undefined).map((r) => r.release.name),
      exitAfterDecisiveEvent: {
        all: reaction(exits),
        healthy: reaction(exits.filter((r) => r.release.failure === undefined)),
        failing: reaction(exits.filter((r) => r.release.failure !== undefined)),
      },
      // Each release as it went, so that a wrong answer or an outlier can be looked into afterwards.
      perRelease: exits.map((r) => ({
        release: r.release.name,
        failure: r.release.failure ?? "none",
        code: r.code,
        exitAfterDecisiveEventMs: decisiveAt(r.release) === undefined ? null : Math.round((r.exitAtMs - decisiveAt(r.release)!) * 10) / 10,
        ...(r.observingAtMs !== undefined && { startUpMs: Math.round(r.observingAtMs - r.spawnedAtMs) }),
        ...(tool.startsWith("observe") && { outcome: verdictOutcomeOf(r.stdout), said: verdictMessageOf(r.stdout) }),
      })),
      ...(tool.startsWith("observe") && observeTimings(exits.map((r) => ({ ...r, decisiveAtMs: decisiveAt(r.release) })))),
      apiRequestsPerRelease: Math.round((sum(requests) / size) * 10) / 10,
      apiRequests: requests,
      apiServer: {
        cpuSeconds: Math.round((after.apiServer.cpuSeconds - before.apiServer.cpuSeconds) * 100) / 100,
        roundSeconds: Math.round((after.atMs - before.atMs) / 100) / 10,
        watchesBefore: before.apiServer.watches,
        watchesArmed: armed.watches,
        watchesAddedPerRelease: Math.round(((armed.watches - before.apiServer.watches) / size) * 100) / 100,
      },
    };
  }

  const roundsRun: ReturnType<typeof summarize>[] = [];
  const brokenRounds: { tool: ToolName; releases: number; round: number; error: string }[] = [];
  let serviceWarmUp: ReturnType<typeof summarize> | undefined;
  try {
    // The service opens an informer for a kind when a request first needs it and keeps it open:
    // one release with a Job before the rounds, so the rounds measure a running service (the
    // warm-up's lists and watches are reported apart, once).
    if (tools.includes("observeService")) {
      log("observeService: warm-up, one release");
      serviceWarmUp = await runRound("observeService", 1, -1);
    }
    for (const [s, size] of sizes.entries()) {
      for (let round = 0; round < rounds; round++) {
        const offset = (s + round) % tools.length;
        for (const tool of [...tools.slice(offset), ...tools.slice(0, offset)]) {
          log(`${tool}, N=${size}, round ${round + 1}/${rounds}`);
          // A round that breaks (the API server dropping the benchmark's own connection) is
          // recorded as broken and the run goes on: the other rounds' figures stand.
          const result = await runRound(tool, size, round).catch((error: unknown) => {
            log(`${tool}, N=${size}: round broken: ${String(error)}`);
            brokenRounds.push({ tool, releases: size, round, error: String(error) });
            return undefined;
          });
          if (result === undefined) continue;
          log(`${tool}, N=${size}: exit after decisive p50 ${result.exitAfterDecisiveEvent.all.p50Ms} ms, p99 ${result.exitAfterDecisiveEvent.all.p99Ms} ms; ${result.apiRequestsPerRelease} requests a release; API server ${result.apiServer.cpuSeconds} CPU s; ${result.wrongAnswers} wrong`);
          roundsRun.push(result);
        }
      }
    }
  } finally {
    for (const watch of watches) watch.stop();
    await service.process.stop();
    await accounting.cleanup();
    await core.deleteNamespace({ name: accountsNamespace }).catch(() => undefined);
  }
  const document = {
    sizes,
    rounds,
    timeoutSeconds,
    armSeconds: armMs / 1000,
    harness: existing ? { cluster: "existing" } : { clientQps },
    release: "a Deployment of 3 replicas and a ConfigMap; a bootstrap Job in every fifth (i % 5 == 0); every tenth fails (i % 10 == 0), ImagePullBackOff and a failed Job by turns, ImagePullBackOff first",
    serviceWarmUp: serviceWarmUp && { apiRequests: serviceWarmUp.apiRequests, watchesAdded: serviceWarmUp.apiServer.watchesArmed - serviceWarmUp.apiServer.watchesBefore, wrongAnswers: serviceWarmUp.wrongAnswers },
    notes: {
      gate: "every pod created behind a scheduling gate; a round's gates lifted together once its tools were under way: exitAfterDecisiveEvent is each tool's reaction to its release's decisive event",
      observeService: "apiRequests are the service's own during the round (its shared informers); the observe CLI makes none. its informers were opened by a warm-up release before the rounds (serviceWarmUp), so its rounds add no watches",
      helmWatcher: "apiRequests include Helm's writes (it applies the release, and keeps its release Secret); the others' objects are applied by the benchmark",
      kubectlRolloutStatus: "kubectl rollout status, then kubectl wait --for=condition=complete for a release's Job",
      apiServer: "cpuSeconds: process_cpu_seconds_total over the round (apply to last exit, including the controllers' and kwok's requests, which every tool's round has alike); watches: apiserver_longrunning_requests{verb=WATCH}, before the round and once armed",
    },
    versions: { kubernetes: binaries.kubernetesVersion },
    results: roundsRun,
    brokenRounds,
  };
  console.log(JSON.stringify(document, null, 2));
  log(`written to ${writeResults("concurrent", document)}`);
} finally {
  await cluster?.stop();
}

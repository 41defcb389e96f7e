// `stagewatch demo`: the whole product on one machine. Starts the local control plane and NATS
// from the test harness (or uses a cluster given on the command line), runs the service in this
// process, applies four sample deployments as an apply tool would and follows their observations
// through NATS, exactly as `stagewatch observe` does.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { KubeConfig, KubernetesObjectApi, PatchStrategy, CoreV1Api, CustomObjectsApi, type KubernetesObject } from "@kubernetes/client-node";
import { pino } from "pino";
import { parseAllDocuments } from "yaml";
import { connectObserver, type Observer } from "../../bus/index.js";
import { startService } from "../../service/service.js";
import { defaultFailOn, describeResource, type FailOnEntry, type ObservationEvent, type ObservationVerdict } from "../../verdicts/index.js";
import { parseCommandArgs } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { durationFlagSeconds } from "../inputs/duration.js";
import { failureLogText } from "../views/failureLogText.js";
import { readDeclaredResources } from "../inputs/manifests.js";
import { UsageError } from "../io/usage.js";

export const demoUsage = `Usage: stagewatch demo [flags]

Starts a local Kubernetes control plane (etcd, kube-apiserver, controllers, kwok) and NATS, runs the
service, applies four sample deployments (examples/demo) and prints their progress and verdicts,
with the failing containers' last log lines (kwok serves the billing migration's log).

Flags:
  --kubeconfig PATH  use this cluster instead of starting one (needs NATS_URL too)
  --exit             stop once every verdict is in (default: keep serving metrics until Ctrl-C)
  --timeout DURATION budget of each observation (default 2m)
  -h, --help
`;

/**
 * The checkout the demo's examples and cluster harness are in: the nearest folder above this module
 * with a package.json, which is the same one from src/cli/commands/, dist/cli/commands/ and the
 * bundle's dist/cli-bundle/ (the examples are not in the npm package: the demo runs from a clone).
 */
const repoRoot = nearestPackageRoot(dirname(fileURLToPath(import.meta.url)));

function nearestPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return from;
  }
}
interface Sample {
  readonly deployment: string;
  readonly namespace: string;
  readonly expect: string;
  readonly outcome: ObservationVerdict["outcome"];
  /** The request's failOn, when not the default. */
  readonly failOn?: readonly FailOnEntry[];
}

const samples: readonly Sample[] = [
  { deployment: "shop", namespace: "demo-shop", expect: "healthy", outcome: "succeeded" },
  { deployment: "billing", namespace: "demo-billing", expect: "fails: bootstrap Job", outcome: "failed" },
  { deployment: "search", namespace: "demo-search", expect: "fails: ImagePullBackOff", outcome: "failed" },
  {
    deployment: "catalog",
    namespace: "demo-catalog",
    expect: "fails: FailedCreate warning (quota), held 10s",
    outcome: "failed",
    // A grace rather than at once: a quota raised within it would let the rollout through.
    failOn: [...defaultFailOn, { reason: "FailedCreate", graceSeconds: 10 }],
  },
];

interface LocalClusterHandle {
  kubeconfigPath: string;
  natsUrl: string;
  stop(): Promise<void>;
}

async function startCluster(): Promise<LocalClusterHandle> {
  // The harness is TypeScript under test/ and runs with Node's type stripping; it exists in a
  // source checkout only, which is where a demo runs.
  const harness = join(repoRoot, "test", "cluster", "local-cluster.ts");
  const module = (await import(harness).catch((cause: unknown) => {
    throw new UsageError(`the demo needs a source checkout (${harness} not loadable); or pass --kubeconfig`, { cause });
  })) as { startLocalCluster(options: { stateDir: string }): Promise<LocalClusterHandle> };
  return module.startLocalCluster({ stateDir: join(repoRoot, ".stagewatch", "demo", "cluster") });
}

const demoLogs = { group: "kwok.x-k8s.io", version: "v1alpha1", plural: "clusterlogs", name: "stagewatch-demo-billing" } as const;

/**
 * kwok plays the kubelet in the local cluster and serves container logs from files its ClusterLogs
 * objects name (test/cluster/kwok-logs.ts): the billing migration's log, in the CRI format a
 * container runtime writes, with the connection string a migration tool prints, which the verdict
 * shows scrubbed. A cluster that does not serve ClusterLogs (not kwok's) answers 404 and is left
 * alone: its kubelets have logs of their own.
 */
async function serveDemoLogs(kubeConfig: KubeConfig): Promise<boolean> {
  const api = kubeConfig.makeApiClient(CustomObjectsApi);
  await api.deleteClusterCustomObject(demoLogs).catch(() => undefined);
  const body = {
    apiVersion: `${demoLogs.group}/${demoLogs.version}`,
    kind: "ClusterLogs",
    metadata: { name: demoLogs.name },
    spec: {
      selector: { matchNamespaces: ["demo-billing"] },
      logs: [{ containers: ["migrate"], logsFile: join(repoRoot, "examples", "demo", "billing", "migrate.log"), follow: false }],
    },
  };
  return api.createClusterCustomObject({ ...demoLogs, body }).then(
    () => true,
    () => false,
  );
}

async function manifestObjects(dir: string): Promise<KubernetesObject[]> {
  const text = await readFile(join(dir, "manifests.yaml"), "utf8");
  return parseAllDocuments(text)
    .map((document) => document.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null);
}

/** What an apply tool does: create the namespace, server-side apply every object. */
async function apply(kubeConfig: KubeConfig, namespace: string, objects: readonly KubernetesObject[]): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } }).catch(() => undefined);
  // Pods are refused until the namespace's default ServiceAccount exists.
  for (let attempt = 0; ; attempt++) {
    try {
      await core.readNamespacedServiceAccount({ name: "default", namespace });
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const object of objects) {
    await client.patch(object, undefined, undefined, "stagewatch-demo", true, PatchStrategy.ServerSideApply);
    if (object.kind === "ResourceQuota") await quotaCounted(core, namespace, object.metadata!.name!);
  }
}

/**
 * Until the quota controller has counted a new quota's usage, admission refuses pods with "status
 * unknown for quota"; the demo waits for the count so the refusal names the quota's limits.
 */
async function quotaCounted(core: CoreV1Api, namespace: string, name: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await core.readNamespacedResourceQuota({ name, namespace })).status?.used) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function line(deployment: string, event: ObservationEvent): string | undefined {
  const tag = `[${deployment}]`.padEnd(10);
  switch (event.type) {
    case "progress": {
      const { identity, state, reason, message } = event.resource;
      return `${tag} ${describeResource(identity)}: ${state}${reason ? ` (${reason})` : ""}${message ? `: ${message}` : ""}`;
    }
    case "stage":
      return `${tag} stage ${event.stage} reached`;
    case "stalled":
      return `${tag} stalled: ${event.message}`;
    case "verdict":
      return undefined;
  }
}

async function observeSample(
  observer: Observer,
  kubeConfig: KubeConfig,
  sample: Sample,
  timeoutSeconds: number,
  stdout: CommandIo["stdout"],
): Promise<ObservationVerdict> {
  const dir = join(repoRoot, "examples", "demo", sample.deployment);
  await apply(kubeConfig, sample.namespace, await manifestObjects(dir));
  const run = await observer.observe({
    key: `demo/${sample.deployment}/${Date.now()}`,
    deployment: sample.deployment,
    require: "healthy",
    timeoutSeconds,
    defaultNamespace: sample.namespace,
    resources: await readDeclaredResources([dir]),
    ...(sample.failOn && { failOn: [...sample.failOn] }),
    logs: true,
  });
  for await (const event of run.progress) {
    const text = line(sample.deployment, event);
    if (text) stdout.write(`${text}\n`);
  }
  return run.verdict;
}

export async function demoCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { stdout, env } = io;
  const { values } = parseCommandArgs(argv, {
    kubeconfig: { type: "string" },
    exit: { type: "boolean", default: false },
    timeout: { type: "string", default: "2m" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    stdout.write(demoUsage);
    return 0;
  }
  const timeoutSeconds = durationFlagSeconds("--timeout", values.timeout);
  if (values.kubeconfig && !env["NATS_URL"]) throw new UsageError("--kubeconfig needs NATS_URL as well");

  stdout.write(values.kubeconfig ? "using the given cluster\n" : "starting a local control plane and NATS (first run builds them from Go modules)...\n");
  const cluster: LocalClusterHandle = values.kubeconfig
    ? { kubeconfigPath: values.kubeconfig, natsUrl: env["NATS_URL"]!, stop: async () => {} }
    : await startCluster();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.kubeconfigPath);
  const logFile = join(repoRoot, ".stagewatch", "demo", "stagewatch.log");
  const service = await startService({
    kubeConfig,
    nats: { servers: [cluster.natsUrl], connectTimeoutMs: 5000 },
    metricsHost: "127.0.0.1",
    metricsPort: 0,
    subjectPrefix: "stagewatch",
    logger: pino({ level: "info" }, pino.destination({ dest: logFile, mkdir: true, sync: false })),
    replicaId: "demo",
    containerLogs: true,
  });
  const servingLogs = await serveDemoLogs(kubeConfig);
  stdout.write(`stagewatch is serving; metrics at ${service.metricsUrl}/metrics; logs in ${logFile}\n\n`);

  const observer = await connectObserver({ servers: cluster.natsUrl });
  try {
    const verdicts = await Promise.all(samples.map((sample) => observeSample(observer, kubeConfig, sample, timeoutSeconds, stdout)));
    stdout.write("\nverdicts:\n");
    verdicts.forEach((verdict, index) => {
      stdout.write(`  ${verdict.outcome.padEnd(10)} ${verdict.message}  (expected: ${samples[index]!.expect})\n`);
      const log = failureLogText(verdict.failure);
      if (log) stdout.write(`${log.trimEnd().replace(/^/gm, "             ")}\n`);
    });
    stdout.write(`\nmetrics: ${service.metricsUrl}/metrics\n`);
    if (!values.exit) {
      stdout.write(`KUBECONFIG=${cluster.kubeconfigPath} NATS_URL=${cluster.natsUrl}\nCtrl-C stops the demo.\n`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
    }
    const asExpected = verdicts.every((verdict, index) => verdict.outcome === samples[index]!.outcome);
    return asExpected ? 0 : 1;
  } finally {
    await observer.close();
    await service.stop();
    if (servingLogs) await kubeConfig.makeApiClient(CustomObjectsApi).deleteClusterCustomObject(demoLogs).catch(() => undefined);
    await cluster.stop();
  }
}

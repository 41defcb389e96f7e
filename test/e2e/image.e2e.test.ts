/**
 * The operator's path, run for real: the image built from the repository's Dockerfile by buildah
 * (test/cluster/build-image.sh, on a local stand-in for the official node:24-bookworm-slim: the only
 * substitution), and the chart's pods run from it by podman. The chart is installed with `helm
 * install` in the local cluster (namespaced, user/password NATS authentication, the shipped tenants
 * file, a signing key, a health check, `helm test`) after the Secrets it names, a TokenRequest gives
 * the pod's token for the release's ServiceAccount, and each container starts with exactly what the
 * pod rendered by `helm template` with the same values says (podmanRunArgs: args, env, user and
 * fsGroup, read-only root, dropped capabilities, mounted Secret and ConfigMap files with their
 * modes, the token where client libraries look for it), on the host's network to the local API
 * server and a nats-server with the shipped accounts.
 *
 * kwok runs no containers, so no pod of the chart ever runs in the test cluster (kwok only marks the
 * release's Deployment's pod Running and Ready): this is where the image meets the chart's security
 * context, mounts and signals. The `helm test` hook too: its pod is run by podman, from the rendered
 * hook and from the very pod `helm test` creates, whose terminal status the test then writes from
 * podman's exit code as the kubelet would (kwok never ends a bare pod).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubernetesObject, type V1Deployment, type V1Pod, type V1Secret } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames } from "../../src/bus/index.ts";
import { buildOrReuseBinaries } from "../cluster/binaries.ts";
import { applyObjects, ensureHelm, helmOnCluster, installChart, renderChart, type RenderOptions } from "../cluster/helm.ts";
import { ensureImage, podman, podmanRunArgs, type BuiltImage, type PodContext } from "../cluster/image.ts";
import { kubeJson } from "../cluster/kubeJson.ts";
import { clusterLogs, writeCriLog } from "../cluster/kwok-logs.ts";
import { startNatsWithAccounts, type NatsNode } from "../cluster/nats.ts";
import { freePorts, http, waitFor } from "../cluster/probes.ts";
import { REPO_ROOT, scratchDir, type CommandResult } from "../cluster/stagewatch.ts";
import { accountsFile, accountUsers, tenantsFile, type Account } from "./support/accountLayout.ts";
import { serviceAccountToken } from "./support/chartIdentity.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath, tokenKubeconfig } from "./support/cluster.ts";
import { deployment, job, type Declared } from "./support/manifests.ts";
import { streamEvents, verdictsById } from "./support/replicas.ts";

// A cold build (the stand-in base from the Debian mirror and the npm registry, then the
// Dockerfile's npm ci and tsc) takes minutes on two cores; later runs reuse both.
const BUILD_TIMEOUT_MS = 30 * 60_000;
/**
 * What the Dockerfile's final stage adds above the base: the command line's bundle (dist/cli.js and
 * its chunks, every package inside: 5.8 MB of code, 10.9 MB of source maps) and package.json. The
 * bundle bounds it; a node_modules beside it again (124 MB) would not fit.
 */
const APP_LAYERS_BUDGET_BYTES = 24 * 1024 * 1024;
/** A public key of another service's (helm/stagewatch/ci): verdicts of this file's service are not signed by it. */
const OTHER_PUBLIC_KEY = "NDV56JXZSGQDWYYKNHNPJGOMJASLD6YH5OCFXJEMM3CT4GRVZ3VYGRTQ";

let image: BuiltImage;
let dir: string;
let release: string;
let app: string;
let elsewhere: string;
let releaseName: string;
let nats: NatsNode;
let users: Record<Account, { user: string; pass: string }>;
let publicKey: string;
let context: Omit<PodContext, "name" | "objects">;
const secrets: V1Secret[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

/**
 * The chart's values for the local cluster; `metricsPort` differs per container (one host network),
 * `set` adds to them. The service watches the release namespace too: the test hook's default target
 * is the release's own Deployment.
 */
function values(metricsPort: number, set: Record<string, unknown> = {}): RenderOptions & { releaseName: string; namespace: string } {
  const tag = image.image.lastIndexOf(":");
  return {
    releaseName,
    namespace: release,
    intended: { unauthenticated: false, singleTenant: false, unsigned: false },
    set: {
      // The rendered pods name the image podman runs.
      "image.repository": image.image.slice(0, tag),
      "image.tag": image.image.slice(tag + 1),
      namespaces: [app, release],
      "nats.url": nats.url,
      "nats.auth.type": "userPassword",
      "nats.auth.existingSecret": "stagewatch-nats",
      "tenants.existingSecret": "stagewatch-tenants",
      "signing.existingSecret": "stagewatch-signing",
      "signing.publicKeys": [publicKey],
      "metrics.port": metricsPort,
      healthChecks: [
        {
          apiVersion: "example.stagewatch.io/v1",
          kind: "Widget",
          current: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
          failed: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')",
        },
      ],
      // `helm test` as the admin account PLATFORM (a tenant: the release namespace is no team's).
      "test.enabled": true,
      "test.nats.auth": { type: "userPassword", existingSecret: "stagewatch-test-nats" },
      ...set,
    },
  };
}

/** The chart rendered for the local cluster (`helm template`, the test hook included). */
function render(metricsPort: number, set: Record<string, unknown> = {}): KubernetesObject[] {
  return renderChart(values(metricsPort, set));
}

interface Container {
  name: string;
  url: string;
  /** From `podman run` until /readyz answered 200. */
  readyAfterMs: number;
  gracePeriodSeconds: number;
}

/** The rendered pod's container, started detached by podman and waited for until /readyz. */
async function startContainer(suffix: string): Promise<Container> {
  const [port] = await freePorts(1);
  const objects = render(port!);
  const pod = (objects.find((o) => o.kind === "Deployment") as V1Deployment).spec!.template.spec!;
  const container = pod.containers[0]!;
  const name = `${releaseName}-${suffix}`;
  const { options, args } = podmanRunArgs(pod, container, { ...context, name, objects: [...objects, ...secrets] });
  cleanups.push(() => podman(image, ["rm", "--force", "--time", "0", name]));
  const started = Date.now();
  expect(container.image).toBe(image.image);
  const run = await podman(image, ["run", "--detach", ...options, container.image!, ...args]);
  expect(run.status, output(run)).toBe(0);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${name} /readyz`, async () => (await http(`${url}/readyz`)).status === 200, { timeoutMs: 90_000 });
  } catch (error) {
    throw new Error(`${name} did not become ready:\n${await logsOf(name)}`, { cause: error });
  }
  return { name, url, readyAfterMs: Date.now() - started, gracePeriodSeconds: pod.terminationGracePeriodSeconds ?? 30 };
}

async function logsOf(name: string): Promise<string> {
  const logs = await podman(image, ["logs", name]);
  return logs.stdout + logs.stderr;
}

/** `stagewatch observe` as team A's CI job runs it, against the container's service. */
function observeAsTeamA(declared: readonly Declared[], deploymentName: string, extra: string[] = []) {
  const manifest = join(dir, `${deploymentName}.json`);
  writeFileSync(manifest, declared.map((d) => JSON.stringify(d.manifest)).join("\n---\n"));
  return runStagewatch(["observe", "-f", manifest, "--deployment", deploymentName, "--timeout", "120s", "--json", ...extra], {
    cwd: dir,
    env: { NATS_URL: nats.url, NATS_USER: users.TEAM_A.user, NATS_PASSWORD: users.TEAM_A.pass, STAGEWATCH_VERIFY_KEY: publicKey },
    timeoutMs: 180_000,
  });
}

async function apply(declared: readonly Declared[]): Promise<void> {
  await applyObjects(kubeConfig(), declared.map((d) => d.manifest), { dryRun: false });
}

beforeAll(async () => {
  [image] = await Promise.all([ensureImage(), ensureHelm()]);
  dir = scratchDir("image");
  release = await createNamespace("image-release");
  // The shipped tenants file gives TEAM_A the namespaces team-a and team-a-*.
  app = await createNamespace("team-a-image");
  elsewhere = await createNamespace("team-a-image-elsewhere");
  cleanups.push(() => deleteNamespace(release), () => deleteNamespace(app), () => deleteNamespace(elsewhere));
  releaseName = `image-${randomBytes(3).toString("hex")}`;

  const accounts = accountUsers();
  users = accounts.users;
  nats = await startNatsWithAccounts(buildOrReuseBinaries().natsServer, join(dir, "nats"), accountsFile, accounts.passwordsEnv);
  cleanups.push(() => nats.stop());
  const seedFile = join(dir, "signing.nk");
  const key = await runStagewatch(["keys", "create", seedFile], { cwd: dir, env: {} });
  expect(key.status, output(key)).toBe(0);
  publicKey = key.stdout.trim();
  const secret = (name: string, stringData: Record<string, string>): V1Secret => ({ apiVersion: "v1", kind: "Secret", metadata: { name, namespace: release }, stringData });
  secrets.push(
    secret("stagewatch-nats", { user: users.STAGEWATCH.user, password: users.STAGEWATCH.pass }),
    secret("stagewatch-tenants", { "tenants.yaml": readFileSync(tenantsFile, "utf8") }),
    secret("stagewatch-signing", { "signing.nk": readFileSync(seedFile, "utf8") }),
    // The test hook's own NATS user: a tenant's, never the service's.
    secret("stagewatch-test-nats", { user: users.PLATFORM.user, password: users.PLATFORM.pass }),
  );

  // As an operator installs it: the Secrets, then the release (its ServiceAccount and RBAC, the
  // Deployment whose pod kwok marks ready and podman runs below, the Service, ConfigMaps, policy).
  await applyObjects(kubeConfig(), secrets, { dryRun: false });
  const installed = await installChart(kubeconfigPath(), "install", values(9090));
  expect(installed.status, installed.stdout + installed.stderr).toBe(0);
  cleanups.push(() => helmOnCluster(kubeconfigPath(), ["uninstall", releaseName, "--namespace", release]));
  const serviceAccount = render(9090).find((object) => object.kind === "ServiceAccount")!.metadata!.name!;
  const cluster = kubeConfig().getCurrentCluster()!;
  const server = new URL(cluster.server);
  context = {
    namespace: release,
    apiServer: { host: server.hostname, port: server.port },
    serviceAccount: { token: await serviceAccountToken(serviceAccount, release), caCertificate: Buffer.from(cluster.caData!, "base64").toString("utf8") },
    dir: join(dir, "pods"),
  };
  mkdirSync(context.dir, { recursive: true });
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

describe("the image built from the Dockerfile", () => {
  it("runs as the unprivileged node user, within its size budget above the base", async () => {
    expect(image.user).toBe("node");
    // The base's one layer, then the final stage's cli.js, cli-bundle/ and package.json.
    expect(image.layers).toBe(image.baseLayers + 3);
    expect(image.sizeBytes - image.baseSizeBytes).toBeLessThanOrEqual(APP_LAYERS_BUDGET_BYTES);
    const inspect = await podman(image, ["image", "inspect", "--format", "{{json .Config}}", image.image]);
    const config = JSON.parse(inspect.stdout) as { Entrypoint: string[]; Cmd: string[]; WorkingDir: string; Env: string[] };
    expect(config).toMatchObject({ Entrypoint: ["node", "/app/dist/cli.js"], Cmd: ["serve"], WorkingDir: "/app" });
    expect(config.Env).toContain("NODE_ENV=production");
  });

  it("holds the command line's bundle and package.json, no node_modules: the bundle carries every package", async () => {
    const listed = await podman(image, ["run", "--rm", "--entrypoint", "ls", image.image, "-A", "/app", "/app/dist"]);
    expect(listed.status, output(listed)).toBe(0);
    expect(listed.stdout).toMatch(/^\/app:\ndist\npackage\.json\n\n\/app\/dist:\ncli-bundle\ncli\.js\n$/);
  });
});

describe("the chart's pod, run by podman from the image", () => {
  let first: Container;

  beforeAll(async () => {
    first = await startContainer("a");
  }, 120_000);

  it("serves /readyz, /healthz and /metrics on the chart's metrics port", async () => {
    expect((await http(`${first.url}/readyz`)).status).toBe(200);
    expect((await http(`${first.url}/healthz`)).status).toBe(200);
    const metrics = await http(`${first.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain("# TYPE stagewatch_observations_active gauge");
    const results = join(REPO_ROOT, ".stagewatch", "e2e", "image.json");
    const measured = { imageBytes: image.sizeBytes, baseBytes: image.baseSizeBytes, layers: image.layers, buildSeconds: image.buildSeconds, serveReadyAfterMs: first.readyAfterMs };
    writeFileSync(results, `${JSON.stringify(measured, null, 2)}\n`);
  });

  it("observes a healthy Deployment to healthy and a failing Job to failed, signed", async () => {
    const api = deployment({ namespace: app, name: "api", replicas: 2 });
    await apply([api]);
    const healthy = await observeAsTeamA([api], "api", ["--require", "healthy"]);
    expect(healthy.status, output(healthy)).toBe(0);
    expect(JSON.parse(healthy.stdout)).toMatchObject({ outcome: "succeeded", reached: "healthy" });

    const migrate = job({ namespace: app, name: "migrate", bootstrapLabel: true, fault: Fault.Error, terminationMessage: "migration 0042 failed" });
    await apply([migrate]);
    const failing = await observeAsTeamA([migrate], "migrate", ["--require", "bootstrapped"]);
    expect(failing.status, output(failing)).toBe(1);
    const verdict = JSON.parse(failing.stdout) as { outcome: string; resources: { reason?: string; message?: string }[] };
    expect(verdict.outcome).toBe("failed");
    expect(verdict.resources[0]).toMatchObject({ reason: "BackoffLimitExceeded" });
  }, 300_000);

  it("refuses what the chart's RBAC does not allow: a namespace outside its Roles", async () => {
    const outside = deployment({ namespace: elsewhere, name: "api" });
    const refused = await observeAsTeamA([outside], "outside", ["--require", "healthy"]);
    expect(refused.status, output(refused)).toBe(2);
    expect(refused.stderr).toContain("not watched by this service");
    // The service's refusal agrees with the token's rights: the API server refuses it there too.
    const token = tokenKubeconfig(join(dir, "token.kubeconfig"), context.serviceAccount.token);
    await expect(token.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace: elsewhere })).rejects.toMatchObject({ code: 403 });
    await expect(token.makeApiClient(AppsV1Api).listNamespacedDeployment({ namespace: app })).resolves.toBeDefined();
  });

  it("hands its observation over on `podman stop` (SIGTERM) to a second container, within the pod's grace, one verdict each", async () => {
    const checkout = deployment({ namespace: app, name: "checkout", fault: Fault.NeverReady });
    await apply([checkout]);
    const observed = observeAsTeamA([checkout], "checkout", ["--require", "healthy"]);
    await eventually("the observation in flight on the first container", async () =>
      (await http(`${first.url}/metrics`)).body.match(/^stagewatch_observations_active 1$/m) ? true : undefined,
    );
    // A rolling update's surge: the new pod is ready before the old one is told to stop.
    const second = await startContainer("b");
    const stop = await podman(image, ["stop", "--time", String(first.gracePeriodSeconds), first.name], { timeoutMs: (first.gracePeriodSeconds + 30) * 1000 });
    expect(stop.status, output(stop)).toBe(0);
    const exited = await podman(image, ["inspect", "--format", "{{.State.ExitCode}}", first.name]);
    // 0, not 137: node (PID 1) got SIGTERM itself and shut down before podman's SIGKILL.
    expect(exited.stdout.trim(), await logsOf(first.name)).toBe("0");

    // The rollout goes on: healthy pods, observed by the second container alone now.
    const fixed = deployment({ namespace: app, name: "checkout" });
    await apply([fixed]);
    const verdict = await observed;
    expect(verdict.status, `${output(verdict)}\n${await logsOf(second.name)}`).toBe(0);
    expect(JSON.parse(verdict.stdout)).toMatchObject({ outcome: "succeeded", reached: "healthy" });

    // Every observation of this file has exactly one verdict in the event stream. A client hears
    // its verdict from the record's notice; the stream's copy follows a few milliseconds behind.
    const verdicts = await eventually("a verdict event for each of the three observations", async () => {
      const found = verdictsById(await streamEvents(nats.url, busNames("stagewatch"), { auth: users.STAGEWATCH, tenant: "TEAM_A" }));
      return found.size >= 3 ? found : undefined;
    });
    expect([...verdicts.values()].map((list) => list.length)).toEqual([1, 1, 1]);
  }, 300_000);

  it("writes nothing outside its mounted volumes: the read-only root holds its logs, compile cache and bundle", async () => {
    for (const name of [first.name, `${releaseName}-b`]) {
      const inspect = await podman(image, ["inspect", "--format", "{{json .Mounts}}", name]);
      // Debian's /var/run is a symlink to /run: the runtime creates the mount point under /run.
      const mounts = (JSON.parse(inspect.stdout) as { Destination: string }[]).map((m) => m.Destination.replace(/^\/var\/run\//, "/run/"));
      const diff = await podman(image, ["diff", name]);
      expect(diff.status, output(diff)).toBe(0);
      // What the runtime made to mount the volumes on (as a kubelet's runtime does): their mount
      // points and the directories above them. Anything else was written by the service.
      const changed = diff.stdout.split("\n").filter(Boolean).map((line) => line.slice(2));
      expect(changed.filter((path) => !mounts.some((mount) => mount === path || mount.startsWith(`${path}/`)))).toEqual([]);
      expect(await logsOf(name)).not.toMatch(/EROFS|read-only file system/i);
    }
  });
});

describe("stagewatch observe from the image", () => {
  it("observes manifests on standard input in local mode with a mounted kubeconfig", async () => {
    const web = deployment({ namespace: app, name: "web" });
    await apply([web]);
    // A CI job's kubeconfig, readable by the image's user (uid 1000), as a mounted Secret would be.
    const kubeconfig = join(dir, "ci-kubeconfig");
    copyFileSync(kubeconfigPath(), kubeconfig);
    chmodSync(kubeconfig, 0o644);
    const run = await podman(
      image,
      [
        "run", "--rm", "--interactive", "--network", "host", "--read-only", "--read-only-tmpfs=false", "--cap-drop", "ALL",
        "--volume", `${kubeconfig}:/config/kubeconfig:ro`, "--env", "KUBECONFIG=/config/kubeconfig",
        image.image, "observe", "-f", "-", "--deployment", "web", "--require", "healthy", "--timeout", "90s", "--json",
      ],
      { stdin: JSON.stringify(web.manifest), timeoutMs: 120_000 },
    );
    expect(run.status, output(run)).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ outcome: "succeeded", reached: "healthy" });
  }, 150_000);
});

describe("helm test: the chart's test hook, its pod run by podman from the image", () => {
  const testHook = "templates/tests/observe.yaml";
  const core = () => kubeConfig().makeApiClient(CoreV1Api);
  /** The test hook's objects' name (and the --deployment its observe names). */
  const testName = () => `${releaseName}-stagewatch-test`;
  /** A Deployment kwok shows stuck in ImagePullBackOff, for the failing runs. */
  let payments: Record<string, unknown>;

  beforeAll(async () => {
    // A service of this describe's own: a container of the chart's pod, as the test hook finds it.
    await startContainer("t");
    cleanups.push(() => podman(image, ["rm", "--force", "--time", "0", testName()]));
    await apply([deployment({ namespace: app, name: "payments", fault: Fault.ImagePullBackOff })]);
    payments = { "test.target": { apiVersion: "apps/v1", kind: "Deployment", name: "payments", namespace: app } };
  }, 120_000);

  function testPodOf(objects: readonly KubernetesObject[]): V1Pod {
    return objects.find((object) => object.kind === "Pod" && object.metadata?.annotations?.["helm.sh/hook"] === "test") as V1Pod;
  }

  /** The pod's one container run to completion by podman, as the kubelet would run it, with the objects its env and volumes name. */
  async function runTestPod(pod: V1Pod, objects: readonly KubernetesObject[]): Promise<CommandResult> {
    const container = pod.spec!.containers[0]!;
    expect(container.image).toBe(image.image);
    const { options, args } = podmanRunArgs(pod.spec!, container, { ...context, name: pod.metadata!.name!, objects });
    return podman(image, ["run", "--rm", ...options, container.image!, ...args], { timeoutMs: 180_000 });
  }

  it("renders alone (helm template --show-only) as hooks the API server accepts (server-side dry run)", async () => {
    const hook = renderChart({ ...values(9090), showOnly: testHook });
    expect(hook.map((object) => `${object.kind}/${object.metadata?.name}`).sort()).toEqual(["ConfigMap", "NetworkPolicy", "Pod"].map((kind) => `${kind}/${testName()}`));
    for (const object of hook) expect(object.metadata?.annotations?.["helm.sh/hook"]).toBe("test");
    const applied = await applyObjects(kubeConfig(), hook, { dryRun: true });
    expect((applied.find((object) => object.kind === "Pod") as V1Pod).spec?.containers[0]?.securityContext?.readOnlyRootFilesystem).toBe(true);
  });

  it("exits 0 on the release's own Deployment, healthy, its verdict verified with the published key", async () => {
    const objects = render(9090);
    const run = await runTestPod(testPodOf(objects), [...objects, ...secrets]);
    expect(run.status, output(run)).toBe(0);
    expect(run.stdout).toBe(`deployment ${testName()} reached healthy: 1 resource settled\n`);
    expect(run.stderr).toContain(`Deployment ${release}/${releaseName}-stagewatch: settled: 1/1 replicas ready`);
  });

  it("trusts only the published key: the same verdict, published keys not the service's, is no pass (exit 3)", async () => {
    // Another service's key in the ConfigMap the test pod reads: the verdict it gets is the same.
    const objects = render(9090, { "signing.publicKeys": [OTHER_PUBLIC_KEY], "test.timeout": "30s" });
    const run = await runTestPod(testPodOf(objects), [...objects, ...secrets]);
    expect(run.status, output(run)).toBe(3);
    expect(run.stderr).toMatch(/failed verification: signed by N[A-Z2-7]{55}, not a key trusted here/);
  });

  it("exits 1 with the verdict's reason on a Deployment kwok shows in ImagePullBackOff", async () => {
    const objects = render(9090, payments);
    const run = await runTestPod(testPodOf(objects), [...objects, ...secrets]);
    expect(run.status, output(run)).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^deployment ${testName()} cannot reach healthy: Deployment ${app}/payments: failed: ImagePullBackOff: `));
  });

  /**
   * `helm test` against the installed release, the test playing the kubelet for the pod helm
   * creates (kwok marks it Running and never ends it): that pod's own spec run by podman with the
   * ConfigMaps and Secrets read from the API server, its output served as the container's log
   * through pods/log (kwok's ClusterLogs), and the terminal status the kubelet writes for podman's
   * exit code (phase Succeeded or Failed, the container terminated with that code).
   */
  async function helmTestAsKubelet(logFile: string): Promise<{ helm: CommandResult; pod: V1Pod; run: CommandResult }> {
    const kc = kubeConfig();
    const testing = helmOnCluster(kubeconfigPath(), ["test", releaseName, "--namespace", release, "--logs", "--timeout", "3m"], { timeoutMs: 240_000 });
    const name = testName();
    const path = `/api/v1/namespaces/${release}/pods/${name}`;
    const pod = await eventually(`helm's test pod ${name}, running`, async () => {
      const current = (await kubeJson(kc, "GET", path)) as V1Pod;
      return current.status?.phase === "Running" && current.metadata?.deletionTimestamp === undefined ? current : undefined;
    });
    const inCluster = async (kind: string, plural: string) =>
      ((await kubeJson(kc, "GET", `/api/v1/namespaces/${release}/${plural}`)).items as KubernetesObject[]).map((object) => ({ ...object, kind }));
    const startedAt = new Date().toISOString();
    const run = await runTestPod(pod, [...(await inCluster("ConfigMap", "configmaps")), ...(await inCluster("Secret", "secrets"))]);
    const finishedAt = new Date().toISOString();

    // What the runtime logged, one stream after the other, served through pods/log as the kubelet serves it.
    const lines = [...run.stderr.split("\n"), ...run.stdout.split("\n")].filter(Boolean);
    writeCriLog(logFile, lines);
    await eventually("the test container's log through pods/log", async () =>
      (await core().readNamespacedPodLog({ name, namespace: release, container: "observe" })).includes(lines.at(-1)!) ? true : undefined,
    );
    await eventually(`${name}'s terminal status written`, async () => {
      const current = (await kubeJson(kc, "GET", path)) as V1Pod;
      const exitCode = run.status ?? 137;
      const status = {
        ...current.status,
        phase: exitCode === 0 ? "Succeeded" : "Failed",
        conditions: (current.status?.conditions ?? []).map((condition) =>
          ["Ready", "ContainersReady"].includes(condition.type) ? { ...condition, status: "False", reason: "PodCompleted", lastTransitionTime: finishedAt } : condition,
        ),
        containerStatuses: [
          {
            name: "observe",
            image: image.image,
            imageID: "",
            ready: false,
            started: false,
            restartCount: 0,
            state: { terminated: { exitCode, reason: exitCode === 0 ? "Completed" : "Error", startedAt, finishedAt } },
          },
        ],
      };
      return kubeJson(kc, "PUT", `${path}/status`, { ...current, status });
    });
    return { helm: await testing, pod, run };
  }

  it("helm test: the pod helm creates is the rendered hook's; run by podman, its exit code is helm's answer, its verdict in --logs", async () => {
    const logFile = join(dir, "helm-test.log");
    writeFileSync(logFile, "");
    const clusterLogsApi = { group: "kwok.x-k8s.io", version: "v1alpha1", plural: "clusterlogs" } as const;
    const custom = kubeConfig().makeApiClient(CustomObjectsApi);
    await custom.createClusterCustomObject({ ...clusterLogsApi, body: clusterLogs(release, [{ containers: ["observe"], logsFile: logFile }]) });
    cleanups.push(() => custom.deleteClusterCustomObject({ ...clusterLogsApi, name: release }));
    const name = testName();

    const passed = await helmTestAsKubelet(logFile);
    // What helm created is what `helm template` renders (the API server adds its defaults only).
    expect(passed.pod.spec).toMatchObject(testPodOf(render(9090)).spec!);
    expect(passed.run.status, output(passed.run)).toBe(0);
    expect(passed.helm.status, output(passed.helm)).toBe(0);
    expect(passed.helm.stdout).toMatch(new RegExp(`TEST SUITE: +${name}\n(.*\n){2}Phase: +Succeeded`));
    expect(passed.helm.stdout).not.toMatch(/Phase: +Failed/);
    expect(passed.helm.stdout).toContain(`POD LOGS: ${name} (observe)`);
    expect(passed.helm.stdout).toContain(`deployment ${name} reached healthy: 1 resource settled`);
    // hook-succeeded: nothing of the test is left once helm read its log.
    await eventually(`${name} deleted`, async () => ((await core().listNamespacedPod({ namespace: release, fieldSelector: `metadata.name=${name}` })).items.length === 0 ? true : undefined));
    expect((await core().listNamespacedConfigMap({ namespace: release, fieldSelector: `metadata.name=${name}` })).items).toEqual([]);

    // The operator names a target of theirs, stuck: the test fails, saying why.
    const upgraded = await installChart(kubeconfigPath(), "upgrade", values(9090, payments));
    expect(upgraded.status, output(upgraded)).toBe(0);
    const failed = await helmTestAsKubelet(logFile);
    expect(failed.pod.spec).toMatchObject(testPodOf(render(9090, payments)).spec!);
    expect(failed.run.status, output(failed.run)).toBe(1);
    expect(failed.helm.status, output(failed.helm)).toBe(1);
    expect(failed.helm.stdout).toMatch(new RegExp(`TEST SUITE: +${name}\n(.*\n){2}Phase: +Failed`));
    expect(failed.helm.stdout).toContain(`deployment ${name} cannot reach healthy: Deployment ${app}/payments: failed: ImagePullBackOff`);
    // A failed test's pod stays for `kubectl logs` until the next `helm test`.
    expect((await core().readNamespacedPod({ name, namespace: release })).status?.phase).toBe("Failed");
  }, 300_000);
});

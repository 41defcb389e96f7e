/**
 * The command line as a CI script runs it (SPEC section 9): the compiled `stagewatch` in child
 * processes, `stagewatch serve` against the cluster and NATS server of the e2e project and
 * `stagewatch observe` asking it about manifests applied beforehand, as after `kubectl apply`.
 *
 * What a script relies on is pinned down: the exit code (0 reached, 1 failed or timed out, 3 no
 * observer or NATS unreachable), the verdict alone on stdout (text or `--json`) and the progress on
 * stderr. Then `stagewatch demo` on the same cluster, end to end. Bad input (exit 2), help and
 * usage need neither: they are unit tests beside each command (src/cli/*.test.ts).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { AppsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { progressLines } from "./support/progressLines.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { configMap, deployment, job, type Declared } from "./support/manifests.ts";
import { clusterLogs, writeCriLog } from "../cluster/kwok-logs.ts";
import { useServes } from "./support/serve.ts";
import { apply } from "./support/stagewatch.ts";
import { removeBus } from "./support/bus.ts";

/** Bounds a child that should answer at once (nobody listening): a hang fails the test. */
const PROMPT_MS = 30_000;
const unreachableNats = "nats://127.0.0.1:1";

const kc = kubeConfig();
const clusterLogsApi = { group: "kwok.x-k8s.io", version: "v1alpha1", plural: "clusterlogs" } as const;
const dir = scratchDir("cli");
const serves = useServes();

/** `<dir>/<name>/manifests.yaml` holding the objects, as a chart renders into a directory; returns the directory. */
function manifestDir(name: string, ...objects: Declared[]): string {
  const path = join(dir, "manifests", name);
  mkdirSync(path, { recursive: true });
  writeManifest(join(path, "manifests.yaml"), objects.map((object) => object.manifest));
  return path;
}

describe("stagewatch observe against stagewatch serve", () => {
  let namespace: string;
  let prefix: string;

  beforeAll(async () => {
    namespace = await createNamespace("cli");
    prefix = (await serves.start({ name: "cli", args: ["--container-logs"] })).prefix;
  });

  afterAll(async () => {
    if (namespace) {
      await kc.makeApiClient(CustomObjectsApi).deleteClusterCustomObject({ ...clusterLogsApi, name: namespace }).catch(() => undefined);
      await deleteNamespace(namespace);
    }
  });

  const observe = (args: string[], options: { natsUrl?: string; timeoutMs?: number } = {}) =>
    runStagewatch(["observe", ...args, `--subject-prefix=${prefix}`], { env: { NATS_URL: options.natsUrl ?? natsUrl() }, cwd: dir, timeoutMs: options.timeoutMs });

  it("a healthy Deployment: exit 0, the verdict line alone on stdout, progress on stderr", async () => {
    const config = configMap(namespace, "web-config");
    const web = deployment({ namespace, name: "web" });
    await apply(kc, config.manifest, web.manifest);

    const result = await observe(["-f", manifestDir("web", config, web), "--deployment", "web", "--require", "healthy", "--timeout", "2m"]);

    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toBe("deployment web reached healthy: 2 resources settled\n");
    const progress = result.stderr.split("\n");
    expect(progress[0]).toMatch(/^observing 2 resources as \S+$/);
    expect(result.stderr).toContain("stage applied reached\n");
    expect(result.stderr).toContain("stage healthy reached\n");
    expect(result.stderr).toContain(`Deployment ${namespace}/web: settled`);
  });

  it("--logs: a failing Job's last log lines (kwok's, through pods/log) under the verdict line, scrubbed", async () => {
    const logFile = join(dir, "migrate.log");
    writeCriLog(logFile, ["migrate: applying 0007_orders", "migrate: token=ghp_Xy12ab34cd56 rejected", "fatal: cannot migrate"]);
    await kc.makeApiClient(CustomObjectsApi).createClusterCustomObject({ ...clusterLogsApi, body: clusterLogs(namespace, [{ containers: ["migrate"], logsFile: logFile }]) });
    const migrate = job({ namespace, name: "migrate", bootstrapLabel: true, fault: Fault.Error });
    await apply(kc, migrate.manifest);

    const result = await observe(["-f", manifestDir("migrate", migrate), "--deployment", "orders", "--timeout", "2m", "--logs"]);

    expect(result.status, output(result)).toBe(1);
    const [verdictLine, ...rest] = result.stdout.split("\n");
    expect(verdictLine).toMatch(/^deployment orders cannot reach bootstrapped: Job \S+\/migrate: failed: BackoffLimitExceeded/);
    expect(rest.join("\n")).toMatch(/^log of pod migrate-\w+ container migrate, 3 lines:\n {4}migrate: applying 0007_orders\n {4}migrate: token=\[redacted\] rejected\n {4}fatal: cannot migrate\n$/);
  });

  it("--json: stdout is the ObservationVerdict and nothing else", async () => {
    const api = deployment({ namespace, name: "api", replicas: 1 });
    await apply(kc, api.manifest);

    const result = await observe(["-f", manifestDir("api", api), "--deployment", "api", "--timeout", "2m", "--json"]);

    expect(result.status, output(result)).toBe(0);
    const verdict = ObservationVerdict.parse(JSON.parse(result.stdout));
    expect(verdict).toMatchObject({
      deployment: "api",
      required: "healthy",
      reached: "healthy",
      outcome: "succeeded",
      resources: [{ identity: api.identity, state: "settled" }],
      message: "deployment api reached healthy: 1 resource settled",
    });
    expect(result.stderr).toMatch(new RegExp(`^observing 1 resources? as ${verdict.observationId}\n`));
  });

  it("--progress json: every stderr line a ProgressLine of schema/, the service's signed events to the verdict event; stdout and exit code as ever", async () => {
    const config = configMap(namespace, "feed-config");
    const feed = deployment({ namespace, name: "feed", replicas: 2 });
    await apply(kc, config.manifest, feed.manifest);

    const result = await observe(["-f", manifestDir("feed", config, feed), "--deployment", "feed", "--timeout", "2m", "--progress", "json"]);

    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toBe("deployment feed reached healthy: 2 resources settled\n");
    const lines = progressLines(result.stderr);
    expect(lines[0]).toMatchObject({ type: "observing", deployment: "feed", mode: "service", replay: false, resources: 2 });
    const events = lines.filter((line) => line.type !== "observing" && line.type !== "notice");
    expect(events.flatMap((event) => (event.type === "stage" ? [event.stage] : []))).toEqual(["applied", "bootstrapped", "healthy"]);
    expect(events.at(-1)).toMatchObject({ type: "verdict", verdict: { outcome: "succeeded", reached: "healthy" } });
    for (const event of events) {
      expect(event).toMatchObject({ observationId: (lines[0] as { observationId: string }).observationId, signature: { key: expect.any(String) } });
    }
  });

  it("manifests without a namespace are observed in --namespace; a retry with the same --key follows the same observation", async () => {
    const cache = deployment({ namespace, name: "cache", replicas: 1 });
    await apply(kc, cache.manifest);
    const { namespace: _, ...withoutNamespace } = cache.manifest.metadata;
    const path = manifestDir("cache", { ...cache, manifest: { ...cache.manifest, metadata: withoutNamespace } });
    const args = ["-f", path, "--deployment", "cache", "--namespace", namespace, "--key", `ci-${randomBytes(4).toString("hex")}/cache`, "--json"];

    const first = await observe(args);
    const retry = await observe(args);

    expect(first.status, output(first)).toBe(0);
    expect(retry.status, output(retry)).toBe(0);
    const verdict = ObservationVerdict.parse(JSON.parse(first.stdout));
    expect(verdict.resources).toMatchObject([{ identity: { ...cache.identity, namespace }, state: "settled" }]);
    expect(ObservationVerdict.parse(JSON.parse(retry.stdout)).observationId).toBe(verdict.observationId);
    expect(retry.stderr).toContain(`as ${verdict.observationId} (replay)`);
  });

  it("an ImagePullBackOff Deployment: exit 1, stdout names the reason", async () => {
    const search = deployment({ namespace, name: "search", fault: Fault.ImagePullBackOff, image: "registry.example/search:does-not-exist" });
    await apply(kc, search.manifest);

    const result = await observe(["-f", manifestDir("search", search), "--deployment", "search", "--timeout", "2m"]);

    expect(result.status, output(result)).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(`^deployment search cannot reach healthy: Deployment ${namespace}/search: failed: ImagePullBackOff: .*container search: ImagePullBackOff\\n$`),
    );
  });

  it("a budget that runs out: exit 1, timed_out, the outstanding Deployment with its last reading", async () => {
    const slow = deployment({ namespace, name: "slow", replicas: 1, fault: Fault.NeverReady });
    await apply(kc, slow.manifest);

    const result = await observe(["-f", manifestDir("slow", slow), "--deployment", "slow", "--timeout", "5s", "--json"]);

    expect(result.status, output(result)).toBe(1);
    const verdict = ObservationVerdict.parse(JSON.parse(result.stdout));
    expect(verdict).toMatchObject({ outcome: "timed_out", required: "healthy", resources: [{ identity: slow.identity, state: "pending" }] });
    expect(verdict.message).toMatch(new RegExp(`^deployment slow did not reach healthy within 5s: Deployment ${namespace}/slow: 0/1 replicas ready`));
  });

  it("--stall: a rollout that stops moving is said once on stderr, naming what it waits on, and is no failure by itself", async () => {
    const stuck = deployment({ namespace, name: "stuck", replicas: 1, fault: Fault.NeverReady });
    await apply(kc, stuck.manifest);
    // Observed once the Deployment controller has written all it will: a status written late (a
    // loaded controller manager, 3 s after the first stall in one run) is the rollout moving, and
    // the next stall is rightly said again.
    await eventually("the stuck Deployment's status written", async () => {
      const status = (await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: "stuck", namespace })).status;
      const pods = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items.filter((pod) => pod.metadata?.name?.startsWith("stuck-"));
      const notReady = pods.some((pod) => pod.status?.conditions?.some((c) => c.type === "Ready" && c.reason === "ContainersNotReady"));
      return status?.updatedReplicas === 1 && status.observedGeneration === 1 && notReady ? true : undefined;
    });

    const result = await observe(["-f", manifestDir("stuck", stuck), "--deployment", "stuck", "--timeout", "6s", "--stall", "2s"]);

    expect(result.status, output(result)).toBe(1);
    const stalled = result.stderr.split("\n").filter((line) => line.includes("stalled:"));
    expect(stalled, output(result)).toHaveLength(1);
    expect(stalled[0]).toMatch(new RegExp(`stalled: deployment stuck has not moved for 2s, waiting for healthy: Deployment ${namespace}/stuck: `));
    expect(result.stdout).toMatch(/did not reach healthy within 6s/);
  });

  it("the service stops mid-observation: exit 3 once the budget and the client's grace are over, no hang", async () => {
    const orphaned = await serves.start({ name: "cli-orphan" });
    const stuck = deployment({ namespace, name: "stuck", replicas: 1, fault: Fault.NeverReady });
    await apply(kc, stuck.manifest);
    const running = runStagewatch(["observe", "-f", manifestDir("stuck", stuck), "--deployment", "stuck", "--timeout", "5s", `--subject-prefix=${orphaned.prefix}`], {
      cwd: dir,
      timeoutMs: 90_000,
    });
    await eventually("the observation accepted", async () => {
      const metrics = await (await fetch(`${orphaned.url}/metrics`)).text();
      return /^stagewatch_observations_active 1$/m.test(metrics) ? true : undefined;
    });
    expect(await orphaned.process.stop()).toEqual({ code: 0, signal: null });

    const result = await running;
    expect(result.status, output(result)).toBe(3);
    expect(result.stderr).toContain(`stagewatch: no stagewatch service is listening on ${orphaned.prefix}.get`);
    expect(result.stdout).toBe("");
  }, 120_000);

  describe("nobody to answer exits 3 at once, with a clear message", () => {
    it("NATS reachable, no service on the subject prefix", async () => {
      const good = manifestDir("nobody", configMap(namespace, "nobody-config"));
      const result = await runStagewatch(["observe", "-f", good, "--deployment", "web", "--subject-prefix", "nobody"], { cwd: dir, timeoutMs: PROMPT_MS });
      expect(result.status, output(result)).toBe(3);
      expect(result.stderr).toContain("no stagewatch service is listening on nobody.observe");
      expect(result.stdout).toBe("");
    });

    it("NATS unreachable", async () => {
      const good = manifestDir("unreachable", configMap(namespace, "unreachable-config"));
      const result = await observe(["-f", good, "--deployment", "web"], { natsUrl: unreachableNats, timeoutMs: PROMPT_MS });
      expect(result.status, output(result)).toBe(3);
      expect(result.stderr).toContain(`cannot connect to NATS at ${unreachableNats}`);
      expect(result.stdout).toBe("");
    });
  });
});

describe("serve", () => {
  // Every command's --help and bad flags are unit tests beside them (src/cli/main.test.ts for serve).
  it("exits 0 on SIGTERM", async () => {
    const service = await serves.start({ name: "cli-term" });
    expect(await service.process.stop(30_000)).toEqual({ code: 0, signal: null });
  });
});

describe("stagewatch demo on the e2e cluster", () => {
  // The demo's own names: it applies examples/demo into these and serves on the default prefix.
  const demoNamespaces = ["demo-shop", "demo-billing", "demo-search", "demo-catalog"];
  const demoPrefix = "stagewatch";

  async function namespacesGone(): Promise<void> {
    await Promise.all(demoNamespaces.map((name) => deleteNamespace(name)));
    await eventually(
      "demo namespaces deleted",
      async () => {
        const existing = await kc.makeApiClient(CoreV1Api).listNamespace();
        return existing.items.some((ns) => demoNamespaces.includes(ns.metadata?.name ?? "")) ? undefined : true;
      },
      { timeoutMs: 120_000 },
    );
  }

  beforeAll(async () => {
    // A leftover namespace still terminating would refuse the demo's apply. The demo reads
    // examples/ beside dist/, as in its source checkout: the global setup's build has them.
    await namespacesGone();
  }, 150_000);

  afterAll(async () => {
    await Promise.all(demoNamespaces.map((name) => deleteNamespace(name)));
    await removeBus(natsUrl(), demoPrefix);
  });

  it("--kubeconfig --exit: exit 0 and the four verdicts on stdout", async () => {
    const result = await runStagewatch(["demo", "--kubeconfig", kubeconfigPath(), "--exit"], { cwd: dir, timeoutMs: 170_000 });

    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toContain("[shop]     stage healthy reached\n");
    expect(result.stdout).toContain("\nverdicts:\n");
    const verdicts = result.stdout.slice(result.stdout.indexOf("\nverdicts:\n"));
    expect(verdicts).toMatch(/\n {2}succeeded {2}deployment shop reached healthy: 3 resources settled {2}\(expected: healthy\)\n/);
    expect(verdicts).toMatch(
      /\n {2}failed {5}deployment billing cannot reach bootstrapped: Job demo-billing\/schema-migrate: failed: BackoffLimitExceeded: .*migration 0042_add_invoices failed: relation "invoices" already exists.* {2}\(expected: fails: bootstrap Job\)\n/,
    );
    expect(verdicts).toMatch(
      /\n {2}failed {5}deployment search cannot reach healthy: Deployment demo-search\/api: failed: ImagePullBackOff: .*container api: ImagePullBackOff.* {2}\(expected: fails: ImagePullBackOff\)\n/,
    );
    expect(verdicts).toMatch(
      /\n {2}failed {5}deployment catalog cannot reach healthy: Deployment demo-catalog\/api: failed: FailedCreate: FailedCreate held for 10s, its grace; .*; ReplicaSet api-[a-z0-9]+: FailedCreate( \(x\d+\))?: .*exceeded quota: compute.* {2}\(expected: fails: FailedCreate warning \(quota\), held 10s\)\n/,
    );
    // The failing migration's log, served by kwok (ClusterLogs) and read through pods/log, under its
    // verdict with the connection string's password scrubbed; the pod that never ran says so.
    expect(verdicts).toMatch(
      /\(expected: fails: bootstrap Job\)\n {13}log of pod schema-migrate-\w+ container migrate, 7 lines:\n {17}migrate 3\.2\.1: connecting to postgres:\/\/\[redacted\]@db\.demo-billing:5432\/billing\n/,
    );
    expect(verdicts).toMatch(/\n {17}ERROR: {2}relation "invoices" already exists\n/);
    expect(verdicts).not.toContain("s3cr3t-pw");
    expect(verdicts).toMatch(/\(expected: fails: ImagePullBackOff\)\n {13}no log: pod api-[\w-]+ container api has not run \(ImagePullBackOff\)\n/);
  }, 180_000);
});

/**
 * The command line as a CI script runs it (SPEC section 9): the compiled `stagewatch` in child
 * processes, `stagewatch serve` against the cluster and NATS server of the e2e project and
 * `stagewatch observe` asking it about manifests applied beforehand, as after `kubectl apply`.
 *
 * What a script relies on is pinned down: the exit code (0 reached, 1 failed or timed out, 2 bad
 * input, 3 no observer or NATS unreachable), the verdict alone on stdout (text or `--json`) and the
 * progress on stderr. Then `stagewatch demo` on the same cluster, end to end.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ObservationVerdict } from "../../src/verdicts/schemas.ts";
import {
  compileStagewatch,
  REPO_ROOT,
  runObserve,
  scratchDir,
  startServe,
  writeManifest,
  type CommandResult,
  type CompiledTree,
  type RunningService,
} from "../cluster/stagewatch.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { configMap, deployment, job, type Declared } from "./support/manifests.ts";
import { clusterLogs, writeCriLog } from "../cluster/kwok-logs.ts";
import { apply } from "./support/stagewatch.ts";
import { removeBus } from "./support/bus.ts";

const COMPILE_TIMEOUT_MS = 300_000;
/** Bounds a child that should answer at once (bad input, nobody listening): a hang fails the test. */
const PROMPT_MS = 30_000;
const unreachableNats = "nats://127.0.0.1:1";

const kc = kubeConfig();
const clusterLogsApi = { group: "kwok.x-k8s.io", version: "v1alpha1", plural: "clusterlogs" } as const;
let dir: string;
let compiled: CompiledTree;

beforeAll(() => {
  dir = scratchDir("cli");
  compiled = compileStagewatch(join(dir, "build"));
}, COMPILE_TIMEOUT_MS);

/**
 * Any `stagewatch` command with only the environment given (`runObserve` covers `observe` with
 * NATS_URL alone); the child is killed after `timeoutMs`, which then fails the exit-code check.
 */
function runStagewatch(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiled.cli, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? PROMPT_MS);
    child.once("error", reject);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Both streams, for the message of a failed exit-code assertion. */
const output = (result: CommandResult) => `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

/** `<dir>/<name>/manifests.yaml` holding the objects, as a chart renders into a directory; returns the directory. */
function manifestDir(name: string, ...objects: Declared[]): string {
  const path = join(dir, "manifests", name);
  mkdirSync(path, { recursive: true });
  writeManifest(join(path, "manifests.yaml"), objects.map((object) => object.manifest));
  return path;
}

/** Deletes the event stream and records bucket a service made for `prefix` on the shared NATS server. */
describe("stagewatch observe against stagewatch serve", () => {
  const prefix = `e2e-cli-${randomBytes(3).toString("hex")}`;
  let namespace: string;
  let service: RunningService | undefined;

  beforeAll(async () => {
    namespace = await createNamespace("cli");
    service = await startServe(compiled.cli, { kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), dir, args: [`--subject-prefix=${prefix}`, "--container-logs"] });
  });

  afterAll(async () => {
    await service?.process.stop();
    await removeBus(natsUrl(), prefix);
    if (namespace) {
      await kc.makeApiClient(CustomObjectsApi).deleteClusterCustomObject({ ...clusterLogsApi, name: namespace }).catch(() => undefined);
      await deleteNamespace(namespace);
    }
  });

  const observe = (args: string[], options: { natsUrl?: string; timeoutMs?: number } = {}) =>
    runObserve(compiled.cli, [...args, `--subject-prefix=${prefix}`], {
      natsUrl: options.natsUrl ?? natsUrl(),
      cwd: dir,
      timeoutMs: options.timeoutMs ?? 150_000,
    });

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

    const result = await observe(["-f", manifestDir("stuck", stuck), "--deployment", "stuck", "--timeout", "6s", "--stall", "2s"]);

    expect(result.status, output(result)).toBe(1);
    const stalled = result.stderr.split("\n").filter((line) => line.includes("stalled:"));
    expect(stalled, output(result)).toHaveLength(1);
    expect(stalled[0]).toMatch(new RegExp(`stalled: deployment stuck has not moved for 2s, waiting for healthy: Deployment ${namespace}/stuck: `));
    expect(result.stdout).toMatch(/did not reach healthy within 6s/);
  });

  it("the service stops mid-observation: exit 3 once the budget and the client's grace are over, no hang", async () => {
    const orphanPrefix = `e2e-cli-orphan-${randomBytes(3).toString("hex")}`;
    const orphanDir = join(dir, "orphan");
    mkdirSync(orphanDir, { recursive: true });
    const orphaned = await startServe(compiled.cli, { kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), dir: orphanDir, args: [`--subject-prefix=${orphanPrefix}`] });
    try {
      const stuck = deployment({ namespace, name: "stuck", replicas: 1, fault: Fault.NeverReady });
      await apply(kc, stuck.manifest);
      const running = runObserve(compiled.cli, ["-f", manifestDir("stuck", stuck), "--deployment", "stuck", "--timeout", "5s", `--subject-prefix=${orphanPrefix}`], {
        natsUrl: natsUrl(),
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
      expect(result.stderr).toContain(`stagewatch: no stagewatch service is listening on ${orphanPrefix}.get`);
      expect(result.stdout).toBe("");
    } finally {
      await orphaned.process.stop();
      await removeBus(natsUrl(), orphanPrefix);
    }
  }, 120_000);

  // NATS_URL points nowhere: bad input is refused before connecting, so a CI script never reads
  // a typo as "unreachable" (3) and retries it.
  describe("bad input exits 2 and says what is wrong, even with NATS unreachable", () => {
    let good: string;
    let broken: string;

    beforeAll(() => {
      good = manifestDir("good", configMap(namespace, "good-config"));
      broken = join(dir, "manifests", "broken.yaml");
      writeFileSync(broken, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\n");
    });

    const cases: { name: string; args: () => string[]; stderr: () => string | RegExp }[] = [
      { name: "no --deployment", args: () => ["-f", good], stderr: () => "--deployment: required" },
      { name: "no -f", args: () => ["--deployment", "web"], stderr: () => "-f/--filename: required" },
      {
        name: "--timeout nonsense",
        args: () => ["-f", good, "--deployment", "web", "--timeout", "nonsense"],
        stderr: () => "--timeout: 'nonsense' is not a duration",
      },
      { name: "--timeout 0", args: () => ["-f", good, "--deployment", "web", "--timeout", "0"], stderr: () => "timeoutSeconds: " },
      { name: "a manifest with broken YAML", args: () => ["-f", broken, "--deployment", "web"], stderr: () => `${broken} document 1: ` },
      { name: "a manifest path that does not exist", args: () => ["-f", join(dir, "absent.yaml"), "--deployment", "web"], stderr: () => `${join(dir, "absent.yaml")}: cannot read` },
      {
        name: "--require rendered",
        args: () => ["-f", good, "--deployment", "web", "--require", "rendered"],
        stderr: () => "require: 'rendered' is not observable: render without a cluster instead",
      },
      { name: "a deployment name that is not a subject token", args: () => ["-f", good, "--deployment", "Web_1"], stderr: () => /request rejected \(invalid_request\): deployment: / },
      { name: "an unknown flag", args: () => ["-f", good, "--deployment", "web", "--colour"], stderr: () => "Unknown option '--colour'" },
    ];

    it.each(cases)("observe: $name", async ({ args, stderr }) => {
      const result = await observe(args(), { natsUrl: unreachableNats, timeoutMs: PROMPT_MS });
      expect(result.status, output(result)).toBe(2);
      expect(result.stderr).toMatch(stderr());
      expect(result.stdout).toBe("");
    });
  });

  describe("nobody to answer exits 3 at once, with a clear message", () => {
    it("NATS reachable, no service on the subject prefix", async () => {
      const good = manifestDir("nobody", configMap(namespace, "nobody-config"));
      const result = await runObserve(compiled.cli, ["-f", good, "--deployment", "web", "--subject-prefix", "nobody"], {
        natsUrl: natsUrl(),
        cwd: dir,
        timeoutMs: PROMPT_MS,
      });
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

describe("commands, help and flags", () => {
  it.each([
    {
      command: "serve",
      flags: ["--namespaces", "--metrics-host", "--metrics-port", "--subject-prefix", "--log-level", "--health-checks", "--warning-events", "--container-logs", "NATS_URL", "KUBECONFIG"],
    },
    {
      command: "observe",
      flags: ["--filename", "--deployment", "--require", "--timeout", "--key", "--namespace", "--fail-on", "--logs", "--json", "--subject-prefix"],
    },
    { command: "demo", flags: ["--kubeconfig", "--exit", "--timeout"] },
  ])("$command --help: exit 0, the flags on stdout", async ({ command, flags }) => {
    const result = await runStagewatch([command, "--help"]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: stagewatch ${command} `));
    for (const flag of flags) expect(result.stdout).toContain(flag);
  });

  // NATS_URL points nowhere and --kubeconfig at nothing: flags must be refused before anything
  // connects (and the demo must never start a local cluster here).
  it.each([
    { name: "serve --metrics-port abc", args: ["serve", "--metrics-port", "abc"], stderr: "--metrics-port: 'abc' is not a port" },
    { name: "serve --log-level loud", args: ["serve", "--log-level", "loud"], stderr: "--log-level: must be one of" },
    { name: "serve --namespaces Bad_Name", args: ["serve", "--namespaces", "a,Bad_Name"], stderr: "--namespaces: 'Bad_Name' is not a namespace name" },
    {
      name: "demo --kubeconfig without NATS_URL",
      args: ["demo", "--kubeconfig", "/nonexistent", "--exit"],
      env: {},
      stderr: "--kubeconfig needs NATS_URL as well",
    },
    { name: "demo --timeout soon", args: ["demo", "--kubeconfig", "/nonexistent", "--timeout", "soon"], stderr: "--timeout: 'soon' is not a duration" },
    { name: "an unknown command", args: ["deploy"], stderr: "unknown command 'deploy'" },
  ])("$name: exit 2", async ({ args, env, stderr }) => {
    const result = await runStagewatch(args, { env: env ?? { NATS_URL: unreachableNats } });
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toContain(stderr);
  });

  it("serve --health-checks with an expression that does not compile: exit 2 naming the kind and expression", async () => {
    const path = join(dir, "health-checks.yaml");
    writeFileSync(path, "healthChecks:\n  - apiVersion: example.com/v1\n    kind: Widget\n    current: \"status.phase ==\"\n");
    const result = await runStagewatch(["serve", "--health-checks", path], { env: { NATS_URL: unreachableNats } });
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toContain(`--health-checks: ${path}: health check for example.com/Widget: current expression "status.phase ==" does not compile`);
  });

  it("no command: exit 2 with the overview", async () => {
    const result = await runStagewatch([]);
    expect(result.status, output(result)).toBe(2);
    expect(result.stdout).toContain("stagewatch observe [flags]");
  });

  it("serve exits 0 on SIGTERM", async () => {
    const prefix = `e2e-cli-term-${randomBytes(3).toString("hex")}`;
    const serveDir = join(dir, "term");
    mkdirSync(serveDir, { recursive: true });
    const service = await startServe(compiled.cli, { kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), dir: serveDir, args: [`--subject-prefix=${prefix}`] });
    try {
      expect(await service.process.stop(30_000)).toEqual({ code: 0, signal: null });
    } finally {
      await removeBus(natsUrl(), prefix);
    }
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
    // A leftover namespace still terminating would refuse the demo's apply.
    await namespacesGone();
    // The demo reads examples/ from its source checkout, next to dist/.
    cpSync(join(REPO_ROOT, "examples"), join(compiled.root, "examples"), { recursive: true });
  }, 150_000);

  afterAll(async () => {
    await Promise.all(demoNamespaces.map((name) => deleteNamespace(name)));
    await removeBus(natsUrl(), demoPrefix);
  });

  it("--kubeconfig --exit: exit 0 and the four verdicts on stdout", async () => {
    const result = await runStagewatch(["demo", "--kubeconfig", kubeconfigPath(), "--exit"], {
      env: { NATS_URL: natsUrl() },
      timeoutMs: 170_000,
    });

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
      /\n {2}failed {5}deployment catalog cannot reach healthy: Deployment demo-catalog\/api: failed: FailedCreate: .*; ReplicaSet api-[a-z0-9]+: FailedCreate( \(x\d+\))?: .*exceeded quota: compute.* {2}\(expected: fails: FailedCreate warning \(quota\)\)\n/,
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

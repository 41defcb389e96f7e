/**
 * `stagewatch observe` in local mode, the compiled CLI against the real API server with no NATS in
 * its environment: the service's engine decides in the CLI's process. A healthy rollout, an
 * ImagePullBackOff that fails at once, a rollout held through a verification window, a bootstrap Job failing with its termination message, a
 * custom resource judged by a CEL check from --health-checks, a namespaced ServiceAccount that may
 * (and one that may not) read pods, a kubeconfig whose credential comes from an exec plugin, and
 * the same rollout judged by local mode and by the service giving the same verdict body.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, type V1PolicyRule } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeJson } from "../cluster/kubeJson.ts";
import { scratchDir, writeManifest, type CommandResult } from "../cluster/stagewatch.ts";
import type { ObservationVerdict } from "../../src/verdicts/contract/schemas.js";
import { output, runStagewatch } from "./support/cli.js";
import { progressLines } from "./support/progressLines.js";
import { createNamespace, deleteNamespace, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.js";
import { installKind, removeKind, type TestKind } from "./support/crds.js";
import { deployment, job, type Manifest } from "./support/manifests.js";
import { apply, startStagewatch } from "./support/stagewatch.js";

const admin = kubeConfig();
const core = admin.makeApiClient(CoreV1Api);
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const dir = scratchDir("observe-local");
let namespace: string;

beforeAll(async () => {
  namespace = await createNamespace("observe-local");
});

afterAll(async () => {
  if (namespace) await deleteNamespace(namespace);
});

type LocalVerdict = ObservationVerdict & { mode: string; verified: boolean };

/** `stagewatch observe --json` of `objects` (written as a manifest file), with only a kubeconfig in its environment. */
async function observeLocally(name: string, objects: readonly Manifest[], args: readonly string[] = [], env: NodeJS.ProcessEnv = { KUBECONFIG: kubeconfigPath() }): Promise<{ result: CommandResult; verdict: LocalVerdict }> {
  const manifest = writeManifest(join(dir, `${name}.yaml`), objects);
  const result = await runStagewatch(["observe", "-f", manifest, "--deployment", name, "--timeout", "90s", "--json", ...args], { env });
  let verdict: LocalVerdict;
  try {
    verdict = JSON.parse(result.stdout) as LocalVerdict;
  } catch {
    throw new Error(`observe printed no JSON verdict (exit ${result.status}):\n${output(result)}`);
  }
  return { result, verdict };
}

describe("local mode: the engine in the CLI's process", () => {
  it("a healthy rollout: exit 0, the verdict says local mode decided it", async () => {
    const api = deployment({ namespace, name: "api", replicas: 2 });
    await apply(admin, api.manifest);
    const { result, verdict } = await observeLocally("healthy", [api.manifest]);
    expect(result.status, output(result)).toBe(0);
    expect(verdict).toMatchObject({ mode: "local", verified: false, outcome: "succeeded", reached: "healthy", resources: [{ identity: api.identity, state: "settled" }] });
    expect(result.stderr).toContain("in this process (local mode)");
    expect(result.stderr).toContain("decided in this process (local mode: no NATS configured)");
  });

  it("--require verified: the rollout held through its window, in this process; plain progress says how long the window runs", async () => {
    const soak = deployment({ namespace, name: "soak", replicas: 1 });
    await apply(admin, soak.manifest);
    const { result, verdict } = await observeLocally("soak", [soak.manifest], ["--require", "verified", "--verify-window", "3s", "--progress", "plain"]);
    expect(result.status, output(result)).toBe(0);
    expect(verdict).toMatchObject({ mode: "local", outcome: "succeeded", required: "verified", reached: "verified", verification: { windowSeconds: 3, pods: [expect.stringMatching(/^soak-/)] } });
    expect(result.stderr).toMatch(/stage healthy reached\n\[ *[\d.]+s\] verifying: the new revision's pods must hold for 3s\n[^]*stage verified reached/);
  });

  it("ImagePullBackOff fails at once (a failure, not the budget running out), naming the pod's container", async () => {
    const web = deployment({ namespace, name: "web", fault: Fault.ImagePullBackOff });
    await apply(admin, web.manifest);
    const { result, verdict } = await observeLocally("pull", [web.manifest]);
    expect(result.status, output(result)).toBe(1);
    expect(verdict).toMatchObject({ mode: "local", outcome: "failed", failure: { resource: web.identity, reason: "ImagePullBackOff" } });
    expect(verdict.message).toMatch(/container web: ImagePullBackOff/);
  });

  it("--progress json: the engine's events and local mode's notices, every line a ProgressLine of schema/; exit 1 as ever", async () => {
    const cart = deployment({ namespace, name: "cart", fault: Fault.ImagePullBackOff });
    await apply(admin, cart.manifest);
    const { result, verdict } = await observeLocally("cart", [cart.manifest], ["--progress", "json"]);
    expect(result.status, output(result)).toBe(1);
    const lines = progressLines(result.stderr);
    expect(lines[0]).toEqual({ type: "observing", observationId: verdict.observationId, deployment: "cart", mode: "local", replay: false, resources: 1, at: expect.any(String) });
    const failing = lines.find((line) => line.type === "progress" && line.resource.state === "failed");
    expect(failing).toMatchObject({ resource: { identity: cart.identity, reason: "ImagePullBackOff" } });
    const { mode: _, verified: __, ...published } = verdict;
    expect(lines.find((line) => line.type === "verdict")).toMatchObject({ observationId: verdict.observationId, verdict: published });
    expect(lines.at(-1)).toMatchObject({ type: "notice", message: expect.stringMatching(/^decided in this process \(local mode/) });
  });

  it("a bootstrap Job failing: cannot reach bootstrapped, with its container's termination message", async () => {
    const terminationMessage = 'ERROR: relation "ledger_entries" already exists (SQLSTATE 42P07)';
    const migrate = job({ namespace, name: "schema-migrate", bootstrapLabel: true, fault: Fault.Error, terminationMessage });
    const ledger = deployment({ namespace, name: "ledger" });
    await apply(admin, migrate.manifest, ledger.manifest);
    const { result, verdict } = await observeLocally("bootstrap", [migrate.manifest, ledger.manifest]);
    expect(result.status, output(result)).toBe(1);
    // `reached` is not asserted: the Job has failed before observe starts here, and the engine
    // decides on the first terminal reading, which may come before the Deployment's (reached
    // "none") or after it ("applied"), in either mode.
    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "bootstrapped", resource: migrate.identity, reason: "BackoffLimitExceeded" } });
    expect(verdict.failure?.message).toContain(`container schema-migrate: Error: ${terminationMessage}`);
  });
});

describe("local mode: a custom resource judged by a CEL health check from --health-checks", () => {
  let reactors: TestKind | undefined;
  const group = `reactors${Date.now().toString(36)}.local.e2e.stagewatch.io`;
  const check = { apiVersion: `${group}/v1`, kind: "Reactor", failed: "has(status.phase) && status.phase == 'Meltdown'", current: "has(status.phase) && status.phase == 'Critical' && status.output.megawatts > 0" };

  afterAll(async () => {
    if (reactors) await removeKind(reactors);
  });

  it("settled when current holds, failed when failed holds", async () => {
    reactors = await installKind(group, "Reactor", "reactors");
    const checks = join(dir, "health-checks.yaml");
    writeFileSync(checks, JSON.stringify({ healthChecks: [check] }));
    const reactor = (name: string): Manifest => ({ apiVersion: reactors!.apiVersion, kind: "Reactor", metadata: { name, namespace }, spec: { fuel: "thorium" } });
    const [steady, doomed] = [reactor("steady"), reactor("doomed")];
    await apply(admin, steady, doomed);
    for (const [name, status] of [["steady", { phase: "Critical", output: { megawatts: 1200 } }], ["doomed", { phase: "Meltdown" }]] as const) {
      const path = `/apis/${group}/v1/namespaces/${namespace}/reactors/${name}`;
      await kubeJson(admin, "PUT", `${path}/status`, { ...(await kubeJson(admin, "GET", path)), status });
    }

    const settled = await observeLocally("reactor-steady", [steady], ["--health-checks", checks]);
    expect(settled.result.status, output(settled.result)).toBe(0);
    expect(settled.verdict).toMatchObject({ outcome: "succeeded", resources: [{ state: "settled", message: `current holds: ${check.current}` }] });

    const failed = await observeLocally("reactor-doomed", [doomed], ["--health-checks", checks]);
    expect(failed.result.status, output(failed.result)).toBe(1);
    expect(failed.verdict).toMatchObject({ outcome: "failed", failure: { reason: "HealthCheckFailed", message: `failed holds: ${check.failed}` } });
  });
});

describe("local mode with a namespaced ServiceAccount's kubeconfig (least privilege)", () => {
  const readWorkloads: V1PolicyRule = { apiGroups: ["apps"], resources: ["deployments", "replicasets"], verbs: ["get", "list", "watch"] };
  const readEvents: V1PolicyRule = { apiGroups: [""], resources: ["events"], verbs: ["list", "watch"] };
  const readPods: V1PolicyRule = { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] };

  /** A ServiceAccount of `namespace` with a Role there (nothing cluster-wide), and a token for it. */
  async function serviceAccount(name: string, rules: V1PolicyRule[]): Promise<string> {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: { metadata: { name }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name }, subjects: [{ kind: "ServiceAccount", name, namespace }] },
    });
    const token = await core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    return token.status?.token ?? "";
  }

  /** A kubeconfig file for the e2e cluster whose user is `user` (a token, or an exec plugin). */
  function kubeconfigFile(name: string, user: Parameters<KubeConfig["loadFromOptions"]>[0]["users"][number]): string {
    const cluster = admin.getCurrentCluster();
    if (cluster === null) throw new Error("the e2e kubeconfig names no cluster");
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ ...cluster, name: "e2e" }],
      users: [{ ...user, name }],
      contexts: [{ name: "ci", cluster: "e2e", user: name, namespace }],
      currentContext: "ci",
    });
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(path, kc.exportConfig());
    return path;
  }

  it("may read its namespace's workloads, pods and events: a rollout reaches healthy, its namespace taken from the context", async () => {
    const token = await serviceAccount("deployer", [readWorkloads, readPods, readEvents]);
    const api = deployment({ namespace, name: "scoped" });
    await apply(admin, api.manifest);
    // No namespace in the manifest: the context's namespace, as kubectl apply would have used.
    const { namespace: _, ...metadata } = api.manifest.metadata;
    const { result, verdict } = await observeLocally("scoped", [{ ...api.manifest, metadata }], [], { KUBECONFIG: kubeconfigFile("deployer", { token }) });
    expect(result.status, output(result)).toBe(0);
    expect(verdict).toMatchObject({ outcome: "succeeded", resources: [{ identity: api.identity, state: "settled" }] });
    expect(result.stderr).not.toContain("warning");
  });

  it("may not read pods: a rollout still in progress fails at once, naming the verb and resource", async () => {
    const token = await serviceAccount("no-pods", [readWorkloads, readEvents]);
    const stuck = deployment({ namespace, name: "stuck", fault: Fault.ImagePullBackOff });
    await apply(admin, stuck.manifest);
    const { result, verdict } = await observeLocally("no-pods", [stuck.manifest], [], { KUBECONFIG: kubeconfigFile("no-pods", { token }) });
    expect(result.status, output(result)).toBe(1);
    expect(verdict).toMatchObject({ outcome: "failed", failure: { resource: stuck.identity, reason: "Forbidden" } });
    expect(verdict.failure?.message).toContain('cannot list resource "pods"');
    expect(verdict.failure?.message).toContain(`in the namespace "${namespace}"`);
  });

  it("an exec credential plugin (a script, as EKS, GKE and AKS kubeconfigs run one) supplies the token", async () => {
    const token = await serviceAccount("exec-user", [readWorkloads, readPods, readEvents]);
    const ran = join(dir, "exec-plugin-ran");
    const plugin = join(dir, "exec-plugin.sh");
    const credential = JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token } });
    writeFileSync(plugin, `#!/bin/sh\necho "$STAGEWATCH_E2E_CLUSTER" >> '${ran}'\ncat <<'EOF'\n${credential}\nEOF\n`, { mode: 0o755 });
    const kubeconfig = kubeconfigFile("exec-user", {
      exec: { apiVersion: "client.authentication.k8s.io/v1", command: plugin, env: [{ name: "STAGEWATCH_E2E_CLUSTER", value: "e2e" }], interactiveMode: "Never" },
    } as never);
    const api = deployment({ namespace, name: "exec" });
    await apply(admin, api.manifest);
    const { result, verdict } = await observeLocally("exec", [api.manifest], ["--kubeconfig", kubeconfig], {});
    expect(result.status, output(result)).toBe(0);
    expect(verdict).toMatchObject({ outcome: "succeeded" });
    expect(existsSync(ran)).toBe(true);
    expect(readFileSync(ran, "utf8")).toContain("e2e");
  });
});

describe("local mode and the service judge alike", () => {
  it("the same rollout gets the same verdict body from both, apart from the mode and the ids", async () => {
    const stagewatch = await startStagewatch({ name: "localvs" });
    try {
      const api = deployment({ namespace, name: "twice", replicas: 3 });
      await apply(admin, api.manifest);
      const local = await observeLocally("twice", [api.manifest]);
      // This in-process service signs nothing, and the client is told that is meant (as an
      // installation with the chart's signing.unsigned: intended must).
      const service = await observeLocally("twice", [api.manifest], ["--subject-prefix", stagewatch.prefix, "--allow-unverified"], {
        KUBECONFIG: kubeconfigPath(),
        NATS_URL: natsUrl(),
        STAGEWATCH_VERIFY_KEY: "",
      });
      expect(local.result.status, output(local.result)).toBe(0);
      expect(service.result.status, output(service.result)).toBe(0);
      expect(local.verdict.mode).toBe("local");
      expect(service.verdict.mode).toBe("service");
      expect(body(local.verdict)).toEqual(body(service.verdict));
    } finally {
      await stagewatch.stop();
    }
  });
});

/** A verdict without what differs between two observations of the same thing: ids, times, who decided and signed. */
function body(verdict: LocalVerdict): object {
  const { observationId: _id, key: _key, startedAt: _started, deadline: _deadline, decidedAt: _decided, mode: _mode, verified: _verified, signature: _signature, ...rest } = verdict as LocalVerdict & { signature?: unknown };
  return rest;
}

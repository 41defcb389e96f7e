// `stagewatch observe`'s answers to bad input, run in this process with NATS_URL pointing nowhere:
// bad input is refused before anything connects, so a CI script never reads a typo as
// "unreachable" (3) and retries it. What needs the service is in test/e2e/cli.e2e.test.ts.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { oldKey } from "../../signing/testing/keys.js";
import { ProgressLine } from "../../verdicts/contract/schemas.js";
import { output, runCli } from "../testing/runCli.js";

const dir = mkdtempSync(join(tmpdir(), "observe-"));
const good = join(dir, "good");
mkdirSync(good);
writeFileSync(join(good, "manifests.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good-config, namespace: cli}\ndata: {LOG_LEVEL: info}\n");
const broken = join(dir, "broken.yaml");
writeFileSync(broken, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\n");
const absent = join(dir, "absent.yaml");

// HOME without a kubeconfig: the default namespace is "default", as for a CI job without one.
const env = { NATS_URL: "nats://127.0.0.1:1", HOME: dir };

describe("stagewatch observe: bad input exits 2 and says what is wrong, even with NATS unreachable", () => {
  test.each([
    { name: "no --deployment", args: ["-f", good], stderr: "--deployment: required" },
    { name: "no -f", args: ["--deployment", "web"], stderr: "-f/--filename: required" },
    { name: "--timeout nonsense", args: ["-f", good, "--deployment", "web", "--timeout", "nonsense"], stderr: "--timeout: 'nonsense' is not a duration" },
    { name: "--timeout 0", args: ["-f", good, "--deployment", "web", "--timeout", "0"], stderr: "timeoutSeconds: " },
    { name: "a manifest with broken YAML", args: ["-f", broken, "--deployment", "web"], stderr: `${broken} document 1: ` },
    { name: "a manifest path that does not exist", args: ["-f", absent, "--deployment", "web"], stderr: `${absent}: cannot read` },
    {
      name: "--require rendered",
      args: ["-f", good, "--deployment", "web", "--require", "rendered"],
      stderr: "require: 'rendered' is not observable: render without a cluster instead",
    },
    { name: "--require verified without --verify-window", args: ["-f", good, "--deployment", "web", "--require", "verified"], stderr: "--verify-window: required with --require verified" },
    { name: "--verify-window without --require verified", args: ["-f", good, "--deployment", "web", "--verify-window", "5m"], stderr: "--verify-window: only with --require verified" },
    {
      name: "--verify-window as long as --timeout",
      args: ["-f", good, "--deployment", "web", "--require", "verified", "--verify-window", "5m", "--timeout", "5m"],
      stderr: /verify\.windowSeconds: must be shorter than timeoutSeconds/,
    },
    {
      name: "--verify-fail-on with a reason no controller writes",
      args: ["-f", good, "--deployment", "web", "--require", "verified", "--verify-window", "1m", "--verify-fail-on", "BackOff,not a reason"],
      stderr: /verify\.failOn\[1\]: must be a reason as controllers write it/,
    },
    { name: "--analysis without --require verified", args: ["-f", good, "--deployment", "web", "--analysis", "error-rate"], stderr: "--analysis: only with --require verified" },
    {
      name: "--analysis with an argument that is not ARG=VALUE",
      args: ["-f", good, "--deployment", "web", "--require", "verified", "--verify-window", "1m", "--analysis", "error-rate:route"],
      stderr: "--analysis: 'route' in 'error-rate:route' is not ARG=VALUE",
    },
    {
      name: "--analysis with an argument name no template can declare",
      args: ["-f", good, "--deployment", "web", "--require", "verified", "--verify-window", "1m", "--analysis", "error-rate:Route=/"],
      stderr: /verify\.analyses\[0\]\.args\.Route: /,
    },
    {
      name: "--analyses in service mode",
      args: ["-f", good, "--deployment", "web", "--require", "verified", "--verify-window", "1m", "--analyses", good],
      stderr: "--analyses: in service mode the service's own --analyses and Prometheus measure; this flag is for local mode",
    },
    { name: "a deployment name that is not a subject token", args: ["-f", good, "--deployment", "Web_1"], stderr: /request rejected \(invalid_request\): deployment: / },
    { name: "an unknown flag", args: ["-f", good, "--deployment", "web", "--colour"], stderr: "Unknown option '--colour'" },
    { name: "--progress nonsense", args: ["-f", good, "--deployment", "web", "--progress", "ndjson"], stderr: "--progress: must be one of auto, tty, plain, json" },
    { name: "--stall neither a duration nor auto", args: ["-f", good, "--deployment", "web", "--stall", "soon"], stderr: "--stall: 'soon' is not a duration" },
    { name: "--traceparent that is not W3C", args: ["-f", good, "--deployment", "web", "--traceparent", "00-abc-def-01"], stderr: /request rejected \(invalid_request\): traceparent: must be a W3C traceparent/ },
    { name: "a TRACEPARENT that is not W3C", args: ["-f", good, "--deployment", "web"], env: { TRACEPARENT: "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }, stderr: /traceparent: must be a W3C traceparent/ },
  ])("$name", async ({ args, stderr, ...extra }) => {
    const result = await runCli(["observe", ...args], { env: { ...env, ...("env" in extra ? extra.env : {}) } });
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toMatch(stderr);
    expect(result.stdout).toBe("");
  });
});

test("observe --help: exit 0, the flags on stdout", async () => {
  const result = await runCli(["observe", "--help"]);
  expect(result.status, output(result)).toBe(0);
  expect(result.stdout).toMatch(/^Usage: stagewatch observe /);
  for (const flag of ["--filename", "--deployment", "--require", "--timeout", "--key", "--namespace", "--fail-on", "--logs", "--json", "--subject-prefix"]) {
    expect(result.stdout).toContain(flag);
  }
});

/** A kubeconfig whose one context `ci` (namespace cli) names an API server nobody listens on. */
function nowhereKubeconfig(name: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    "apiVersion: v1\nkind: Config\ncurrent-context: ci\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: ci, context: {cluster: c, user: u, namespace: cli}}]\n",
  );
  return path;
}

describe("stagewatch observe: which engine decides", () => {
  const noNats = { HOME: dir };
  test.each([
    { name: "--mode nonsense", args: ["--mode", "auto"], env: noNats, status: 2, stderr: "--mode: must be one of local, service" },
    { name: "--nats-url and --server both", args: ["--nats-url", "nats://a:4222", "--server", "nats://b:4222"], env: noNats, status: 2, stderr: "--nats-url and --server are the same flag" },
    { name: "--health-checks in service mode", args: ["--health-checks", good], env, status: 2, stderr: "--health-checks: in service mode the service's own" },
    { name: "--verify-key in local mode", args: ["--mode", "local", "--verify-key", oldKey.publicKey], env: noNats, status: 2, stderr: "--verify-key: local mode signs nothing" },
    // NATS configured and unreachable is "unavailable" (3), never a quiet switch to local mode.
    { name: "NATS_URL unreachable", args: [], env, status: 3, stderr: "cannot connect to NATS at nats://127.0.0.1:1" },
    { name: "--nats-url unreachable", args: ["--nats-url", "nats://127.0.0.1:1"], env: noNats, status: 3, stderr: "cannot connect to NATS at nats://127.0.0.1:1" },
    { name: "local mode with no kubeconfig and not in a pod", args: [], env: noNats, status: 3, stderr: "no cluster to observe: no kubeconfig" },
    { name: "local mode, --kubeconfig that does not exist", args: ["--kubeconfig", absent], env: noNats, status: 2, stderr: `--kubeconfig: ${absent} does not exist` },
  ])("$name: exit $status", { timeout: 30_000 }, async ({ args, env: given, status, stderr }) => {
    const result = await runCli(["observe", "-f", good, "--deployment", "web", "--timeout", "5s", ...args], { env: given });
    expect(result.status, output(result)).toBe(status);
    expect(result.stderr).toContain(stderr);
    expect(result.stdout).toBe("");
  });

  test("local mode, a --context the kubeconfig lacks: exit 2 naming the contexts it has", async () => {
    const kubeconfig = nowhereKubeconfig("kubeconfig");
    const result = await runCli(["observe", "-f", good, "--deployment", "web", "--kubeconfig", kubeconfig, "--context", "prod"], { env: { HOME: dir } });
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toContain("--context: no context 'prod'");
    expect(result.stderr).toContain("(contexts: ci)");
  });

  test("local mode, an API server that is not there: exit 3 naming it", async () => {
    const kubeconfig = nowhereKubeconfig("kubeconfig-unreachable");
    const result = await runCli(["observe", "-f", good, "--deployment", "web", "--key", "k"], { env: { HOME: dir, KUBECONFIG: kubeconfig } });
    expect(result.status, output(result)).toBe(3);
    expect(result.stderr).toContain("--key has no effect in local mode");
    expect(result.stderr).toContain("cannot reach the API server at https://127.0.0.1:1");
  });

  test("--progress json: every line on stderr is JSON, the error that ends it a notice, the exit code the same", async () => {
    const kubeconfig = nowhereKubeconfig("kubeconfig-json");
    const result = await runCli(["observe", "-f", good, "--deployment", "web", "--key", "k", "--progress", "json"], { env: { HOME: dir, KUBECONFIG: kubeconfig } });
    expect(result.status, output(result)).toBe(3);
    const lines = result.stderr.trimEnd().split("\n").map((line) => ProgressLine.parse(JSON.parse(line)));
    expect(lines.map((line) => line.type)).toEqual(["notice", "notice"]);
    expect(lines[0]).toMatchObject({ message: expect.stringMatching(/^--key has no effect in local mode/) });
    expect(lines[1]).toMatchObject({ message: expect.stringContaining("cannot reach the API server at https://127.0.0.1:1") });
    expect(result.stdout).toBe("");
  });
});

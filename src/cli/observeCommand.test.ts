// `stagewatch observe`'s answers to bad input, run in this process with NATS_URL pointing nowhere:
// bad input is refused before anything connects, so a CI script never reads a typo as
// "unreachable" (3) and retries it. What needs the service is in test/e2e/cli.e2e.test.ts.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { output, runCli } from "./testing/runCli.js";

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
    { name: "a deployment name that is not a subject token", args: ["-f", good, "--deployment", "Web_1"], stderr: /request rejected \(invalid_request\): deployment: / },
    { name: "an unknown flag", args: ["-f", good, "--deployment", "web", "--colour"], stderr: "Unknown option '--colour'" },
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

// The dispatcher's own answers (no command, an unknown one) and serve's help and bad flags, run in
// this process: flags are refused before anything connects, so NATS_URL does not matter.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { output, runCli } from "./testing/runCli.js";

// serve's module brings the service and the Kubernetes client: seconds on a loaded machine, paid
// here once rather than inside the first serve test's time bound.
beforeAll(async () => {
  await import("./commands/serveCommand.js");
}, 60_000);

test("no command: exit 2 with the overview", async () => {
  const result = await runCli([]);
  expect(result.status, output(result)).toBe(2);
  expect(result.stdout).toContain("stagewatch observe [flags]");
});

test("an unknown command: exit 2", async () => {
  const result = await runCli(["deploy"]);
  expect(result.status, output(result)).toBe(2);
  expect(result.stderr).toContain("unknown command 'deploy'");
});

test("serve --help: exit 0, the flags on stdout", async () => {
  const result = await runCli(["serve", "--help"]);
  expect(result.status, output(result)).toBe(0);
  expect(result.stdout).toMatch(/^Usage: stagewatch serve /);
  for (const flag of ["--namespaces", "--metrics-host", "--metrics-port", "--subject-prefix", "--log-level", "--health-checks", "--warning-events", "--container-logs", "NATS_URL", "KUBECONFIG"]) {
    expect(result.stdout).toContain(flag);
  }
});

test.each([
  { name: "serve --metrics-port abc", args: ["serve", "--metrics-port", "abc"], stderr: "--metrics-port: 'abc' is not a port" },
  { name: "serve --log-level loud", args: ["serve", "--log-level", "loud"], stderr: "--log-level: must be one of" },
  { name: "serve --namespaces Bad_Name", args: ["serve", "--namespaces", "a,Bad_Name"], stderr: "--namespaces: 'Bad_Name' is not a namespace name" },
])("$name: exit 2", async ({ args, stderr }) => {
  const result = await runCli(args);
  expect(result.status, output(result)).toBe(2);
  expect(result.stderr).toContain(stderr);
});

test("serve --health-checks with an expression that does not compile: exit 2 naming the kind and expression", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "serve-")), "health-checks.yaml");
  writeFileSync(path, "healthChecks:\n  - apiVersion: example.com/v1\n    kind: Widget\n    current: \"status.phase ==\"\n");
  const result = await runCli(["serve", "--health-checks", path]);
  expect(result.status, output(result)).toBe(2);
  expect(result.stderr).toContain(`--health-checks: ${path}: health check for example.com/Widget: current expression "status.phase ==" does not compile`);
});

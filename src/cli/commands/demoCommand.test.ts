// `stagewatch demo`'s flags, refused before anything starts: with --kubeconfig at nothing, it must
// never start a local cluster here. The demo itself runs in test/e2e/cli.e2e.test.ts.
import { beforeAll, expect, test } from "vitest";
import { output, runCli } from "../testing/runCli.js";

// The demo's module brings the service and the Kubernetes client: paid once here, not inside
// the first test's time bound.
beforeAll(async () => {
  await import("./demoCommand.js");
}, 60_000);

test.each([
  { name: "--kubeconfig without NATS_URL", args: ["--kubeconfig", "/nonexistent", "--exit"], env: {}, stderr: "--kubeconfig needs NATS_URL as well" },
  { name: "--timeout soon", args: ["--kubeconfig", "/nonexistent", "--timeout", "soon"], env: { NATS_URL: "nats://127.0.0.1:1" }, stderr: "--timeout: 'soon' is not a duration" },
])("demo $name: exit 2", async ({ args, env, stderr }) => {
  const result = await runCli(["demo", ...args], { env });
  expect(result.status, output(result)).toBe(2);
  expect(result.stderr).toContain(stderr);
});

test("demo --help: exit 0, the flags on stdout", async () => {
  const result = await runCli(["demo", "--help"]);
  expect(result.status, output(result)).toBe(0);
  expect(result.stdout).toMatch(/^Usage: stagewatch demo /);
  for (const flag of ["--kubeconfig", "--exit", "--timeout"]) expect(result.stdout).toContain(flag);
});

// `stagewatch list`'s answers to bad input, run in this process: refused before anything connects.
// What reads the buckets of a running service is in test/e2e/operator-list.e2e.test.ts; that list
// loads no Kubernetes client is in test/unit/cli-imports.test.ts.
import { describe, expect, test } from "vitest";
import { output, runCli } from "../testing/runCli.js";

const env = { NATS_URL: "nats://127.0.0.1:1" };

describe("stagewatch list", () => {
  test.each([
    { name: "an unknown output format", args: ["-o", "yaml"], stderr: "-o/--output: must be one of table, json" },
    { name: "an operand", args: ["extra"], stderr: "Unexpected argument 'extra'" },
    { name: "a bad prefix", args: ["--subject-prefix=a b"], stderr: `--subject-prefix: "a b" is not a subject prefix` },
  ])("$name: exit 2", async ({ args, stderr }) => {
    const result = await runCli(["list", "--subject-prefix=e2e-list", ...args], { env });
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toContain(stderr);
    expect(result.stdout).toBe("");
  });

  test("--help: exit 0, usage on stdout", async () => {
    const result = await runCli(["list", "--help"], { env });
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toMatch(/^Usage: stagewatch list/);
  });
});

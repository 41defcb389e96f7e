// `stagewatch get` and `cancel`: their answers to bad input, run in this process and refused
// before anything connects. What asks a running service is in test/e2e/operator-commands.e2e.test.ts.
import { describe, expect, test } from "vitest";
import { output, runCli } from "../testing/runCli.js";

const env = { NATS_URL: "nats://127.0.0.1:1" };

describe("stagewatch get and cancel", () => {
  test.each([
    { name: "no id", args: ["get", "--subject-prefix=e2e-ops"], stderr: "expected one OBSERVATION_ID, got 0" },
    { name: "an unknown output format", args: ["get", "x", "-o", "yaml"], stderr: "-o/--output: must be one of table, json" },
    { name: "--reason on get", args: ["get", "x", "--reason", "r"], stderr: "Unknown option '--reason'" },
  ])("$name: exit 2", async ({ args, stderr }) => {
    const result = await runCli(args, { env });
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toContain(stderr);
    expect(result.stdout).toBe("");
  });

  test.each(["get", "cancel"])("%s --help: exit 0, usage on stdout", async (command) => {
    const result = await runCli([command, "--help"], { env });
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: stagewatch ${command} OBSERVATION_ID`));
    expect(result.stdout).toContain("--output");
  });
});

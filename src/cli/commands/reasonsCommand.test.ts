import { describe, expect, test } from "vitest";
import { reasonTable } from "../../verdicts/contract/reasonTable.js";
import { runCli } from "../testing/runCli.js";

describe("stagewatch reasons", () => {
  test("prints every reason with its default, its grace, who writes it and why, then the default failOn", async () => {
    const { status, stdout } = await runCli(["reasons"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^REASON +DEFAULT +GRACE +WRITTEN BY\n/);
    expect(stdout).toMatch(/\nImagePullBackOff +yes +at once +kubelet/);
    expect(stdout).toMatch(/\nCrashLoopBackOff +no +2m0s +kubelet/);
    expect(stdout).toContain("    never heals: broken code or configuration");
    expect(stdout.split("\n").filter((line) => line.startsWith("    heals: "))).toHaveLength(reasonTable.length);
    expect(stdout).toMatch(/\nDefault failOn: ImagePullBackOff,InvalidImageName\n$/);
  });

  test("-o json is the table itself", async () => {
    const { status, stdout } = await runCli(["reasons", "-o", "json"]);
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(JSON.stringify(reasonTable)));
  });

  test("an unknown output is bad input naming the flag", async () => {
    const { status, stderr } = await runCli(["reasons", "-o", "yaml"]);
    expect(status).toBe(2);
    expect(stderr).toContain("--output: 'yaml' is not table or json");
  });
});

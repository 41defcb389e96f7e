import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { HealthCheckConfig } from "../../verdicts/index.js";
import { libraryEntries } from "../../verdicts/library/entries.js";
import { healthCommand } from "./healthCommand.js";
import { UsageError } from "../io/usage.js";

async function run(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const io = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: () => true, isTTY: false },
    readStdin: async () => "",
    env: {},
  };
  return { code: await healthCommand(argv, io), out };
}

describe("stagewatch health", () => {
  test("lists every entry with its API version and source", async () => {
    const { code, out } = await run();
    expect(code).toBe(0);
    expect(out).toMatch(/^KIND +API VERSION +SOURCE\n/);
    expect(out).toContain("argoproj.io/Rollout");
    expect(out).toContain(`${libraryEntries.length} entries`);
  });

  test("-o json names each entry and whether a file overrides it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stagewatch-health-"));
    const file = join(dir, "checks.yaml");
    writeFileSync(file, "healthChecks:\n  - apiVersion: argoproj.io/v1alpha1\n    kind: Rollout\n    current: \"has(status.phase) && status.phase == 'Healthy'\"\n");
    const { out } = await run("-o", "json", "--health-checks", file);
    const entries = JSON.parse(out) as { kind: string; overridden: boolean }[];
    expect(entries.find((e) => e.kind === "argoproj.io/Rollout")).toMatchObject({ overridden: true });
    expect(entries.find((e) => e.kind === "gateway.networking.k8s.io/Gateway")).toMatchObject({ overridden: false });
  });

  test("one entry prints as a --health-checks file serve accepts", async () => {
    const { out } = await run("gateway.networking.k8s.io/HTTPRoute");
    expect(out.startsWith("# Gateway API")).toBe(true);
    const parsed = HealthCheckConfig.safeParse(parse(out));
    expect(parsed.success).toBe(true);
    expect(parsed.data?.healthChecks[0]).toMatchObject({ apiVersion: "gateway.networking.k8s.io/v1", kind: "HTTPRoute" });
  });

  test("a kind the library does not have, or a name several kinds share, is bad input", async () => {
    await expect(run("example.com/Widget")).rejects.toThrow(UsageError);
    await expect(run("Gateway")).rejects.toThrow(/several kinds of that name/);
  });
});

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

/** Every package a module reaches through static imports of the repository's own files. */
function packagesReached(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const [, specifier] of source.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gms)) {
      if (specifier!.startsWith(".")) visit(resolve(dirname(file), specifier!.replace(/\.js$/, ".ts")));
      else packages.add(specifier!);
    }
  };
  visit(entry);
  return packages;
}

describe("stagewatch list", () => {
  test("loads no Kubernetes client: it reads NATS only", () => {
    const reached = packagesReached(fileURLToPath(new URL("./listCommand.ts", import.meta.url)));
    expect(reached).toContain("@nats-io/kv");
    expect([...reached].filter((name) => name.startsWith("@kubernetes/"))).toEqual([]);
  });
});

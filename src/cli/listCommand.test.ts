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

const kubernetesPackages = (entry: string) => [...packagesReached(fileURLToPath(new URL(entry, import.meta.url)))].filter((name) => name.startsWith("@kubernetes/"));

describe("stagewatch list", () => {
  test("loads no Kubernetes client: it reads NATS only", () => {
    expect(packagesReached(fileURLToPath(new URL("./listCommand.ts", import.meta.url)))).toContain("@nats-io/kv");
    expect(kubernetesPackages("./listCommand.ts")).toEqual([]);
  });

  test("nor does the dispatch in main.ts, which loads each command when it runs; get and cancel need none either", () => {
    expect(kubernetesPackages("./main.ts")).toEqual([]);
    expect(kubernetesPackages("./operatorCommands.ts")).toEqual([]);
    expect(kubernetesPackages("./observeCommand.ts")).toEqual([]);
  });
});

// CONTRIBUTING.md "How the code is laid out" says which folder of src/ may import which; this reads
// every module's imports (type-only and dynamic ones too: a type from another folder is a
// dependency on it as much as a value) and fails on one the table does not allow. Imports within a
// folder, and from src/cli.ts and src/index.ts (the entry points, above every folder), are always
// allowed. Unit tests next to the code count as the code they test.
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, test } from "vitest";
import { importsOf, srcDir } from "./support/importGraph.ts";

/** CONTRIBUTING.md's "may import" column, folder by folder. */
const mayImport: Record<string, readonly string[]> = {
  logging: [],
  kube: [],
  ownership: ["kube"],
  verdicts: ["kube", "ownership"],
  streams: ["kube", "logging"],
  signing: ["verdicts"],
  tenants: ["verdicts"],
  bus: ["verdicts", "signing", "tenants", "logging"],
  observations: ["logging", "kube", "verdicts", "ownership", "streams", "signing", "tenants", "bus"],
  tracing: ["verdicts", "logging"],
  service: ["logging", "kube", "verdicts", "ownership", "streams", "signing", "tenants", "bus", "observations", "tracing"],
  cli: ["logging", "kube", "verdicts", "ownership", "streams", "signing", "tenants", "bus", "observations", "service", "tracing"],
};

/** The folder of src/ a path lies in; undefined for the entry points at its top and for what lies outside it. */
function folderOf(file: string): string | undefined {
  const path = relative(srcDir, file);
  const [first, ...rest] = path.split(sep);
  return path.startsWith("..") || rest.length === 0 ? undefined : first;
}

const modules = readdirSync(srcDir, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
  .map((entry) => join(entry.parentPath, entry.name));

describe("layering (CONTRIBUTING.md: How the code is laid out)", () => {
  test("the table names every folder of src/", () => {
    expect(new Set(modules.map(folderOf).filter((folder) => folder !== undefined))).toEqual(new Set(Object.keys(mayImport)));
  });

  test("no module imports from a folder its folder may not import", () => {
    const crossings = modules.flatMap((file) => {
      const from = folderOf(file);
      if (from === undefined) return [];
      return importsOf(file, { typeOnly: true, dynamic: true })
        .relative.map((target) => ({ target, to: folderOf(target) }))
        .filter(({ to }) => to !== undefined && to !== from && !mayImport[from]!.includes(to))
        .map(({ target }) => `${relative(srcDir, file)} -> ${relative(srcDir, target)}`);
    });
    expect(crossings).toEqual([]);
  });
});

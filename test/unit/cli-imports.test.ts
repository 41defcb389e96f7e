// What `stagewatch observe`, `get`, `cancel` and `--help` load at start-up, read statically from
// the sources: every `import` and `export ... from` that stays in the compiled output (type-only
// ones are erased), followed from src/cli.ts, plus the modules main.ts imports dynamically for the
// command being run and for its error report. A timing would be flaky on a shared runner; the
// graph is what makes start-up fast or slow (the Kubernetes client alone was about 0.6 s).
import { readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const src = join(root, "src");

interface Graph {
  modules: Set<string>;
  packages: Set<string>;
}

/** The static value imports of one source file: relative paths resolved, packages by name. */
function staticImports(file: string): { relative: string[]; packages: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const relative: string[] = [];
  const packages: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) specifier = statement.moduleSpecifier;
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    const name = specifier.text;
    if (name.startsWith(".")) relative.push(resolve(dirname(file), name.replace(/\.js$/, ".ts")));
    else if (!name.startsWith("node:")) packages.push(name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0]!);
  }
  return { relative, packages };
}

function graphFrom(...entries: string[]): Graph {
  const graph: Graph = { modules: new Set(), packages: new Set() };
  const pending = entries.map((entry) => join(src, entry));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.modules.has(file)) continue;
    expect(existsSync(file), `${file} exists`).toBe(true);
    graph.modules.add(file);
    const { relative, packages } = staticImports(file);
    pending.push(...relative);
    for (const name of packages) graph.packages.add(name);
  }
  return graph;
}

/** The packages a package brings, through its package.json dependencies, itself included. */
function packageClosure(names: Iterable<string>): Set<string> {
  const closure = new Set<string>();
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (closure.has(name)) continue;
    closure.add(name);
    const manifest = JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
    pending.push(...Object.keys(manifest.dependencies ?? {}));
  }
  return closure;
}

const relativeTo = (graph: Graph) => [...graph.modules].map((file) => file.slice(src.length + 1)).sort();
// What `observe` is allowed to bring: the bus client's transport and JetStream, zod, yaml, and
// nkeys for the service's public keys (which the transport brings anyway, for NATS nkey auth).
const clientPackages = ["@nats-io/jetstream", "@nats-io/nkeys", "@nats-io/transport-node", "yaml", "zod"];

describe("start-up import graphs", () => {
  test("--help and an unknown command load the dispatcher and the usage text only", () => {
    const graph = graphFrom("cli.ts", "cli/main.ts");
    expect(relativeTo(graph)).toEqual(["cli.ts", "cli/main.ts", "cli/usage.ts"]);
    expect([...graph.packages]).toEqual([]);
  });

  test.each([
    ["observe", "cli/observeCommand.ts"],
    ["get and cancel", "cli/operatorCommands.ts"],
  ])("%s reaches the bus client, zod and yaml, never @kubernetes/client-node", (_, command) => {
    const graph = graphFrom("cli.ts", "cli/main.ts", command, "cli/errorReport.ts");
    expect([...graph.packages].every((name) => clientPackages.includes(name)), [...graph.packages].join(", ")).toBe(true);
    expect(packageClosure(graph.packages).has("@kubernetes/client-node")).toBe(false);
    // Nor the service's side of the bus, the engine or the informers, which would bring it back.
    const modules = relativeTo(graph);
    expect(modules.filter((file) => /^(service|observations|streams)\//.test(file) || file === "bus/index.ts")).toEqual([]);
  });

  test("the check sees what it guards against: serve does reach the Kubernetes client", () => {
    const graph = graphFrom("cli.ts", "cli/main.ts", "cli/serveCommand.ts");
    expect(packageClosure(graph.packages).has("@kubernetes/client-node")).toBe(true);
  });

  test("cli.ts and main.ts import the dispatcher and each command's module dynamically, as the roots above assume", () => {
    expect(readFileSync(join(src, "cli.ts"), "utf8")).toContain(`import("./cli/main.js")`);
    const main = readFileSync(join(src, "cli/main.ts"), "utf8");
    for (const module of ["observeCommand", "operatorCommands", "errorReport", "serveCommand", "demoCommand"]) {
      expect(main).toContain(`import("./${module}.js")`);
    }
  });
});

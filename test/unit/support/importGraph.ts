/**
 * The one reader of the repository's import graph, from the sources as TypeScript parses them:
 * what a command loads at start-up (test/unit/cli-imports.test.ts) and which folder imports which
 * (test/unit/layering.test.ts). Relative specifiers resolve to the `.ts` file beside them (`.js`
 * in src, `.ts` in tests); packages are named without their subpath (`@nats-io/kv`, `yaml`);
 * Node's built-ins (`node:fs`) are left out.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const srcDir = join(repoRoot, "src");

export interface ImportsOptions {
  /**
   * Also `import type` and `export type ... from`, which the compiler erases: they load nothing at
   * run time, but they are still a dependency of one folder on another. Default false.
   */
  typeOnly?: boolean;
  /** Also `import("...")` of a literal path, which loads only when reached. Default false. */
  dynamic?: boolean;
}

export interface ModuleImports {
  /** Absolute paths of the repository's own modules. */
  relative: string[];
  packages: string[];
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/** What one source file imports (and re-exports from). */
export function importsOf(file: string, options: ImportsOptions = {}): ModuleImports {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement) && (options.typeOnly || !statement.importClause?.isTypeOnly)) specifier = statement.moduleSpecifier;
    if (ts.isExportDeclaration(statement) && (options.typeOnly || !statement.isTypeOnly)) specifier = statement.moduleSpecifier;
    if (specifier !== undefined && ts.isStringLiteral(specifier)) specifiers.push(specifier.text);
  }
  if (options.dynamic) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [argument] = node.arguments;
        if (argument !== undefined && ts.isStringLiteralLike(argument)) specifiers.push(argument.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const relative: string[] = [];
  const packages: string[] = [];
  for (const specifier of specifiers) {
    if (specifier.startsWith(".")) relative.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    else if (!specifier.startsWith("node:")) packages.push(packageName(specifier));
  }
  return { relative, packages };
}

export interface ImportGraph {
  modules: Set<string>;
  packages: Set<string>;
}

/** Every module and package reached from `entries` (absolute paths), following `importsOf`. */
export function importGraph(entries: readonly string[], options: ImportsOptions = {}): ImportGraph {
  const graph: ImportGraph = { modules: new Set(), packages: new Set() };
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (graph.modules.has(file)) continue;
    if (!existsSync(file)) throw new Error(`${file} is imported but does not exist`);
    graph.modules.add(file);
    const { relative, packages } = importsOf(file, options);
    pending.push(...relative);
    for (const name of packages) graph.packages.add(name);
  }
  return graph;
}

/** The packages these packages bring through their package.json dependencies, themselves included. */
export function packageClosure(names: Iterable<string>): Set<string> {
  const closure = new Set<string>();
  const pending = [...names];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (closure.has(name)) continue;
    closure.add(name);
    const manifest = JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
    pending.push(...Object.keys(manifest.dependencies ?? {}));
  }
  return closure;
}

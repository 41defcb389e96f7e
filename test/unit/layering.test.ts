// CONTRIBUTING.md "How the code is laid out" says which folder of src/ may import which; this reads
// every module's imports (type-only and dynamic ones too: a type from another folder is a
// dependency on it as much as a value) and fails on one the table does not allow. Imports within a
// folder, and from src/cli.ts and src/index.ts (the entry points, above every folder), are always
// allowed. Unit tests next to the code count as the code they test.
//
// Inside a folder, the rooms (its subfolders, one idea each) are checked too: the table's rooms are
// the tree's, no room imports its folder's index.ts (the one entry for other folders, above its
// rooms), the rooms import one another without a circle, and the bus's client (what the package
// exports to apply tools) imports nothing from the service's side.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, test } from "vitest";
import { importsOf, repoRoot, srcDir } from "./support/importGraph.ts";

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
  prometheus: ["verdicts"],
  service: ["logging", "kube", "verdicts", "ownership", "streams", "signing", "tenants", "bus", "observations", "tracing", "prometheus"],
  cli: ["logging", "kube", "verdicts", "ownership", "streams", "signing", "tenants", "bus", "observations", "service", "tracing", "prometheus"],
};

/** The rooms of each folder that has any, as CONTRIBUTING.md's table names them. */
const rooms: Record<string, readonly string[]> = {
  verdicts: ["contract", "text", "rules", "cel", "library", "evidence", "evaluation", "history", "verification", "analysis", "reducer"],
  signing: ["testing"],
  streams: ["testing", "fixtures"],
  bus: ["client", "stores", "server"],
  observations: ["admission", "delivery", "leases", "logTails", "records", "routing", "timers", "testing"],
  cli: ["commands", "inputs", "io", "local", "views", "testing"],
};

/** The folder of src/ a path lies in; undefined for the entry points at its top and for what lies outside it. */
function folderOf(file: string): string | undefined {
  const path = relative(srcDir, file);
  const [first, ...rest] = path.split(sep);
  return path.startsWith("..") || rest.length === 0 ? undefined : first;
}

/** `folder/room` for a module in a room of its folder; undefined for one at the folder's top or outside src/. */
function roomOf(file: string): string | undefined {
  const parts = relative(srcDir, file).split(sep);
  return parts[0] === ".." || parts.length < 3 ? undefined : `${parts[0]}/${parts[1]}`;
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

  test("the rooms table names every subfolder of src/'s folders, and CONTRIBUTING.md names every room", () => {
    const tree = readdirSync(srcDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((folder) => readdirSync(join(srcDir, folder.name), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((room) => `${folder.name}/${room.name}`));
    const table = Object.entries(rooms).flatMap(([folder, names]) => names.map((name) => `${folder}/${name}`));
    expect(new Set(tree)).toEqual(new Set(table));
    const contributing = readFileSync(join(repoRoot, "CONTRIBUTING.md"), "utf8");
    expect(table.filter((room) => !contributing.includes(`src/${room}/`))).toEqual([]);
  });

  const code = modules.filter((file) => !file.endsWith(".test.ts"));
  const roomImports = code.flatMap((file) =>
    importsOf(file, { typeOnly: true, dynamic: true }).relative.map((target) => ({ file, target, from: roomOf(file), to: roomOf(target) })),
  );

  test("no room imports its folder's index.ts, which sits above it", () => {
    const upward = roomImports
      .filter(({ file, target }) => roomOf(file) !== undefined && folderOf(file) === folderOf(target) && relative(srcDir, target) === `${folderOf(file)}/index.ts`)
      .map(({ file, target }) => `${relative(srcDir, file)} -> ${relative(srcDir, target)}`);
    expect(upward).toEqual([]);
  });

  test("the rooms of a folder import one another without a circle", () => {
    const edges = new Map<string, Set<string>>();
    for (const { from, to } of roomImports) {
      if (from === undefined || to === undefined || from === to || from.split("/")[0] !== to.split("/")[0]) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
    const circles: string[] = [];
    const done = new Set<string>();
    const visit = (room: string, path: readonly string[]): void => {
      if (path.includes(room)) {
        circles.push([...path.slice(path.indexOf(room)), room].join(" -> "));
        return;
      }
      if (done.has(room)) return;
      for (const next of edges.get(room) ?? []) visit(next, [...path, room]);
      done.add(room);
    };
    for (const room of edges.keys()) visit(room, []);
    expect(circles).toEqual([]);
  });

  test("the bus's client imports nothing from the service's side", () => {
    const crossings = roomImports
      .filter(({ from, to }) => from === "bus/client" && to === "bus/server")
      .map(({ file, target }) => `${relative(srcDir, file)} -> ${relative(srcDir, target)}`);
    expect(crossings).toEqual([]);
  });
});

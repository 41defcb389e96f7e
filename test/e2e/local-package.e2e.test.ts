/**
 * What users install is what is tested: the compiled tree is packed with `npm pack` (package.json's
 * `files`), the tarball installed into an empty folder with npm (its dependencies from the
 * registry, as `npm install stagewatch` would), and the installed `stagewatch` bin run as a shell
 * runs it (`#!/usr/bin/env node`: the Node first on PATH). It observes a rollout in local mode
 * against the local cluster with nothing but a kubeconfig; on Node 20 (the machine's
 * /usr/bin/node, or the one .ci/run installs) it says in one line which Node it needs and exits 2
 * (older Node 22 releases are the unit test's, test/unit/node-version.test.ts); Node 22 from 22.19
 * runs it (`npm install -g --prefix ~/.cache/stagewatch/node22 node@22`, as .ci/run does).
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runToCompletion, scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { compiledStagewatch, output } from "./support/cli.js";
import { createNamespace, deleteNamespace, kubeConfig, kubeconfigPath } from "./support/cluster.js";
import { deployment } from "./support/manifests.js";
import { apply } from "./support/stagewatch.js";

const dir = scratchDir("local-package");
/** The machine's Node 20, else the one .ci/run installs. */
const node20 = [join(homedir(), ".cache", "stagewatch", "node20", "bin", "node"), "/usr/bin/node"].find((node) => versionOf(node)?.startsWith("20.")) ?? "/usr/bin/node";
const node22 = join(homedir(), ".cache", "stagewatch", "node22", "bin", "node");
let installed: string;
let namespace: string;

/** `node --version` of a binary, or undefined when there is none. */
function versionOf(node: string): string | undefined {
  return existsSync(node) ? execFileSync(node, ["--version"], { encoding: "utf8" }).trim().replace(/^v/, "") : undefined;
}

/** The installed bin, with `node` on PATH the one in `nodeDir`. */
function runInstalled(nodeDir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return runToCompletion(join(installed, "node_modules", ".bin", "stagewatch"), args, {
    cwd: dir,
    env: { PATH: `${nodeDir}:/usr/bin:/bin`, HOME: dir, ...env },
    timeoutMs: 120_000,
  });
}

beforeAll(async () => {
  namespace = await createNamespace("local-package");
  // The package as `npm pack` makes it from a checkout: the compiled tree's package.json and dist,
  // and what `files` names besides (health library, schemas, README).
  const source = join(dir, "source");
  mkdirSync(source, { recursive: true });
  const compiled = compiledStagewatch().root;
  cpSync(join(compiled, "package.json"), join(source, "package.json"));
  cpSync(join(compiled, "dist"), join(source, "dist"), { recursive: true });
  for (const name of ["health", "schema", "README.md"]) cpSync(join(REPO_ROOT, name), join(source, name), { recursive: true });
  const packed = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: source, encoding: "utf8" }).trim().split("\n").at(-1)!;
  // An empty folder outside the checkout, with a package.json of its own: without one npm would
  // walk up and install into the nearest project it finds (this repository).
  installed = mkdtempSync(join(tmpdir(), "stagewatch-installed-"));
  writeFileSync(join(installed, "package.json"), `${JSON.stringify({ name: "pipeline", private: true })}\n`);
  execFileSync("npm", ["install", "--prefix", installed, "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline", join(dir, packed)], { cwd: installed, stdio: "pipe" });
  if (!existsSync(join(installed, "node_modules", "stagewatch", "package.json"))) throw new Error(`npm did not install the tarball into ${installed}`);
}, 600_000);

afterAll(async () => {
  if (installed) rmSync(installed, { recursive: true, force: true });
  if (namespace) await deleteNamespace(namespace);
});

describe("the packed and installed CLI", () => {
  it("holds the bundle, the health library and the schemas, and none of the sources", () => {
    const root = join(installed, "node_modules", "stagewatch");
    expect(existsSync(join(root, "dist", "cli.js"))).toBe(true);
    expect(readdirSync(join(root, "dist", "cli-bundle")).length).toBeGreaterThan(0);
    expect(existsSync(join(root, "health", "argoproj.io", "Rollout.yaml"))).toBe(true);
    expect(existsSync(join(root, "schema", "asyncapi.yaml"))).toBe(true);
    expect(existsSync(join(root, "src"))).toBe(false);
  });

  it("observes a rollout in local mode with nothing but a kubeconfig", async () => {
    const api = deployment({ namespace, name: "api", replicas: 2 });
    await apply(kubeConfig(), api.manifest);
    const manifest = writeManifest(join(dir, "api.yaml"), [api.manifest]);
    const result = await runInstalled(dirname(process.execPath), ["observe", "-f", manifest, "--deployment", "packaged", "--timeout", "90s", "--json"], { KUBECONFIG: kubeconfigPath() });
    expect(result.status, output(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ mode: "local", outcome: "succeeded", reached: "healthy", resources: [{ identity: api.identity, state: "settled" }] });
  });

  it("on Node 20: one line naming the Node it needs, exit 2", async () => {
    const version = versionOf(node20);
    expect(version, "a Node 20: /usr/bin/node, or ~/.cache/stagewatch/node20 (.ci/run installs it)").toMatch(/^20\./);
    const result = await runInstalled(dirname(node20), ["observe", "--help"]);
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toBe(`stagewatch: needs Node.js 22.19 or newer (22 LTS from 22.19, or 24); this is Node.js ${version}\n`);
    expect(result.stdout).toBe("");
  });

  it.skipIf(versionOf(node22) === undefined)("on Node 22 (from 22.19) it runs", async () => {
    const version = versionOf(node22)!;
    expect(version).toMatch(/^22\.(19|[2-9]\d)\./);
    const result = await runInstalled(dirname(node22), ["observe", "--help"]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toMatch(/^Usage: stagewatch observe /);
  });
});

// What `stagewatch observe`, `get`, `cancel` and `--help` load at start-up, read statically from
// the sources: every `import` and `export ... from` that stays in the compiled output (type-only
// ones are erased), followed from src/cli.ts, plus the modules main.ts imports dynamically for the
// command being run and for its error report. A timing would be flaky on a shared runner; the
// graph is what makes start-up fast or slow (the Kubernetes client alone was about 0.6 s).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { importGraph, packageClosure, srcDir as src, type ImportGraph } from "./support/importGraph.ts";

const graphFrom = (...entries: string[]) => importGraph(entries.map((entry) => join(src, entry)));
/** With type-only imports too: not even a type of the Kubernetes client. */
const kubernetesPackages = (entry: string) => [...importGraph([join(src, entry)], { typeOnly: true }).packages].filter((name) => name.startsWith("@kubernetes/"));

const relativeTo = (graph: ImportGraph) => [...graph.modules].map((file) => file.slice(src.length + 1)).sort();
// What `observe` is allowed to bring: the bus client's transport and JetStream, zod, yaml, and
// nkeys for the service's public keys (which the transport brings anyway, for NATS nkey auth).
const clientPackages = ["@nats-io/jetstream", "@nats-io/nkeys", "@nats-io/transport-node", "yaml", "zod"];

describe("start-up import graphs", () => {
  test("--help and an unknown command load the dispatcher and the usage text only", () => {
    const graph = graphFrom("cli.ts", "cli/main.ts");
    expect(relativeTo(graph)).toEqual(["cli.ts", "cli/io/usage.ts", "cli/main.ts", "cli/nodeVersion.ts"]);
    expect([...graph.packages]).toEqual([]);
  });

  test.each([
    ["observe", "cli/commands/observeCommand.ts"],
    ["get and cancel", "cli/commands/operatorCommands.ts"],
  ])("%s reaches the bus client, zod and yaml, never @kubernetes/client-node", (_, command) => {
    const graph = graphFrom("cli.ts", "cli/main.ts", command, "cli/errorReport.ts");
    expect([...graph.packages].every((name) => clientPackages.includes(name)), [...graph.packages].join(", ")).toBe(true);
    expect(packageClosure(graph.packages).has("@kubernetes/client-node")).toBe(false);
    // Nor the service's side of the bus, the engine or the informers, which would bring it back.
    const modules = relativeTo(graph);
    expect(modules.filter((file) => /^(service|observations|streams)\//.test(file) || file === "bus/index.ts")).toEqual([]);
  });

  test("list loads no Kubernetes client: it reads NATS only", () => {
    expect(graphFrom("cli/commands/listCommand.ts").packages).toContain("@nats-io/kv");
    expect(kubernetesPackages("cli/commands/listCommand.ts")).toEqual([]);
  });

  test("nor does the dispatch in main.ts, which loads each command when it runs; get, cancel and observe need none either", () => {
    expect(kubernetesPackages("cli/main.ts")).toEqual([]);
    expect(kubernetesPackages("cli/commands/operatorCommands.ts")).toEqual([]);
    expect(kubernetesPackages("cli/commands/observeCommand.ts")).toEqual([]);
  });

  test("the check sees what it guards against: serve does reach the Kubernetes client", () => {
    const graph = graphFrom("cli.ts", "cli/main.ts", "cli/commands/serveCommand.ts");
    expect(packageClosure(graph.packages).has("@kubernetes/client-node")).toBe(true);
  });

  test("the Node version check imports nothing: cli.ts runs it before anything a newer Node needs is linked", () => {
    const graph = graphFrom("cli/nodeVersion.ts");
    expect(relativeTo(graph)).toEqual(["cli/nodeVersion.ts"]);
    expect([...graph.packages]).toEqual([]);
    expect(readFileSync(join(src, "cli.ts"), "utf8").match(/^import .*$/gm)).toEqual([`import { nodeVersionProblem } from "./cli/nodeVersion.js";`]);
  });

  test("local mode brings the engine, the informers and the Kubernetes client, loaded by observe only in local mode", () => {
    const graph = graphFrom("cli/local/localSession.ts");
    expect(packageClosure(graph.packages).has("@kubernetes/client-node")).toBe(true);
    expect(relativeTo(graph)).toEqual(expect.arrayContaining(["observations/engine.ts", "streams/informerHub.ts"]));
    expect(readFileSync(join(src, "cli/commands/observeCommand.ts"), "utf8")).toContain(`import("../local/localSession.js")`);
  });

  test("cli.ts and main.ts import the dispatcher and each command's module dynamically, as the roots above assume", () => {
    expect(readFileSync(join(src, "cli.ts"), "utf8")).toContain(`import("./cli/main.js")`);
    const main = readFileSync(join(src, "cli/main.ts"), "utf8");
    for (const module of ["commands/observeCommand", "commands/operatorCommands", "errorReport", "commands/serveCommand", "commands/demoCommand"]) {
      expect(main).toContain(`import("./${module}.js")`);
    }
  });
});

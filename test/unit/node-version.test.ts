// The installed CLI's first check (src/cli/nodeVersion.ts): one line naming the Node it needs on
// every Node older than package.json's engines, nothing on the ones it runs on. The real Node 20
// and 22 run the packed CLI in test/e2e/local-package.e2e.test.ts.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { nodeVersionProblem, requiredNode } from "../../src/cli/nodeVersion.ts";

describe("the Node version check", () => {
  test("its minimum is package.json's engines.node", () => {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${requiredNode.major}.${requiredNode.minor}`);
  });

  test.each(["18.20.4", "20.20.2", "22.0.0", "22.18.0"])("Node %s: one line naming the version needed and the one running", (version) => {
    const problem = nodeVersionProblem(version);
    expect(problem).toBe(`stagewatch: needs Node.js 22.19 or newer (22 LTS from 22.19, or 24); this is Node.js ${version}\n`);
  });

  test.each(["22.19.0", "22.21.1", "24.21.0", "25.0.0"])("Node %s: no problem", (version) => {
    expect(nodeVersionProblem(version)).toBeUndefined();
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readHealthChecks } from "./healthChecksFile.js";
import { UsageError } from "../io/usage.js";

const dir = mkdtempSync(join(tmpdir(), "health-checks-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("serve --health-checks", () => {
  it("reads YAML as Flux writes healthCheckExprs, keyed by group and kind", () => {
    const path = file(
      "ok.yaml",
      `healthChecks:
  - apiVersion: cert-manager.io/v1
    kind: Certificate
    failed: "status.conditions.exists(e, e.type == 'Ready' && e.status == 'False')"
    current: "status.conditions.exists(e, e.type == 'Ready' && e.status == 'True')"
`,
    );
    expect([...readHealthChecks(path).keys()]).toEqual(["cert-manager.io/Certificate"]);
  });

  it("an empty file configures nothing", () => {
    expect(readHealthChecks(file("empty.yaml", "")).size).toBe(0);
  });

  it.each([
    ["a missing file", join(dir, "absent.yaml"), /^--health-checks: cannot read .*absent\.yaml/],
    ["a field misspelt", file("typo.yaml", "healthChecks: [{apiVersion: a.io/v1, kind: A, curent: 'true'}]"), /healthChecks\[0\]\.current: .*healthChecks\[0\]\.curent: unknown field/],
    ["an expression that does not compile", file("bad.yaml", "healthChecks: [{apiVersion: a.io/v1, kind: A, current: 'status.phase =='}]"), /--health-checks: .*bad\.yaml: health check for a\.io\/A: current expression "status\.phase ==" does not compile/],
  ])("%s is bad input naming what is wrong", (_, path, message) => {
    expect(() => readHealthChecks(path)).toThrow(UsageError);
    expect(() => readHealthChecks(path)).toThrow(message);
  });
});

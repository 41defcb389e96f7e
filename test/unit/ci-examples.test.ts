// examples/ci: the GitHub Actions workflow and the GitLab CI job must run the script the e2e test
// runs (test/e2e/ci-examples.e2e.test.ts), so what is tested is what they do. Checked here: both
// parse as YAML, call ci/observe-release.sh the same way, keep the verdict file, and the script is
// valid bash.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";

const ciDir = fileURLToPath(new URL("../../examples/ci/", import.meta.url));
const read = (name: string) => parse(readFileSync(`${ciDir}${name}`, "utf8")) as Record<string, unknown>;
const call = "bash ci/observe-release.sh payments k8s/ 5m";

describe("examples/ci", () => {
  test("the GitHub Actions workflow runs the script in a step and uploads the verdict whatever the outcome", () => {
    const workflow = read("github-actions.yml") as { jobs: Record<string, { steps: { run?: string; if?: string; with?: { path?: string } }[] }> };
    const steps = workflow.jobs["deploy"]!.steps;
    expect(steps.filter((step) => step.run?.includes("observe-release.sh")).map((step) => step.run)).toEqual([call]);
    expect(steps.at(-1)).toMatchObject({ if: "always()", with: { path: "stagewatch-verdict.json" } });
  });

  test("the GitLab CI job runs the same script and keeps the verdict whatever the outcome", () => {
    const job = read("gitlab-ci.yml")["deploy"] as { script: string[]; artifacts: { when: string; paths: string[] } };
    expect(job.script).toEqual([call]);
    expect(job.artifacts).toEqual({ when: "always", paths: ["stagewatch-verdict.json"] });
  });

  test("both give the cluster its subject prefix through STAGEWATCH_SUBJECT_PREFIX", () => {
    const workflow = read("github-actions.yml") as { jobs: { deploy: { env: Record<string, string> } } };
    const job = read("gitlab-ci.yml")["deploy"] as { variables: Record<string, string> };
    expect(workflow.jobs.deploy.env["STAGEWATCH_SUBJECT_PREFIX"]).toBe(job.variables["STAGEWATCH_SUBJECT_PREFIX"]);
  });

  test("observe-release.sh is valid bash", () => {
    const check = spawnSync("bash", ["-n", `${ciDir}observe-release.sh`], { encoding: "utf8" });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
  });
});

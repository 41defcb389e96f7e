/**
 * examples/ci/observe-release.sh, the script the GitHub Actions workflow and the GitLab CI job in
 * that folder run, run here as they run it: bash, the real kubectl and the compiled stagewatch on
 * PATH, a CI job's environment (KUBECONFIG, NATS_URL, STAGEWATCH_SUBJECT_PREFIX, the CI's run ids),
 * against `stagewatch serve` on the e2e cluster and NATS server. Each exit code a job acts on is
 * produced by what causes it in a real release.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { REPO_ROOT, writeManifest } from "../cluster/stagewatch.ts";
import { Fault } from "./support/cluster.ts";
import { configMap, deployment } from "./support/manifests.ts";
import { output } from "./support/cli.ts";
import { usePipelineEnvironment } from "./support/pipeline.ts";

const script = join(REPO_ROOT, "examples/ci/observe-release.sh");

describe("examples/ci/observe-release.sh", () => {
  const pipeline = usePipelineEnvironment("ci");

  /** A repository checkout: k8s/ holding `objects`, the job's working directory. */
  function checkout(name: string, ...objects: object[]): string {
    const root = join(pipeline.dir, name);
    mkdirSync(join(root, "k8s"), { recursive: true });
    writeManifest(join(root, "k8s", "app.yaml"), objects);
    return root;
  }
  const job = (root: string, args: string, env: NodeJS.ProcessEnv) =>
    pipeline.sh.run(`cd ${root} && bash ${script} ${args}`, { env: { STAGEWATCH_SUBJECT_PREFIX: pipeline.prefix, ...env } });
  const verdictIn = (root: string) => ObservationVerdict.parse(JSON.parse(readFileSync(join(root, "stagewatch-verdict.json"), "utf8")));

  it("GitLab, a healthy release: exit 0, the verdict kept, the key from the job id, each object at the generation applied", async () => {
    const config = configMap(pipeline.namespace, "web-config");
    const web = deployment({ namespace: pipeline.namespace, name: "web", replicas: 2 });
    const root = checkout("healthy", config.manifest, web.manifest);
    const result = await job(root, "web k8s/ 2m", { CI_JOB_ID: "4812" });
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toMatch(/^stagewatch web: .*healthy.*\n$/);
    const verdict = verdictIn(root);
    expect(verdict).toMatchObject({ key: "gitlab-4812/web", outcome: "succeeded", reached: "healthy" });
    expect(verdict.resources.map((r) => r.identity)).toEqual([config.identity, { ...web.identity, generation: 1 }]);
  });

  it("GitHub Actions, ImagePullBackOff: exit 1 with an error annotation naming the cause, the failed verdict kept", async () => {
    const broken = deployment({ namespace: pipeline.namespace, name: "broken", replicas: 1, fault: Fault.ImagePullBackOff });
    const root = checkout("broken", broken.manifest);
    const result = await job(root, "broken k8s/ 2m", { GITHUB_ACTIONS: "true", GITHUB_RUN_ID: "987", GITHUB_RUN_ATTEMPT: "2" });
    expect(result.status, output(result)).toBe(1);
    expect(result.stdout).toMatch(/^::error title=stagewatch broken::.*ImagePullBackOff/);
    expect(result.stdout).not.toContain("\n::");
    expect(verdictIn(root)).toMatchObject({ key: "github-987-2/broken", outcome: "failed", failure: { reason: "ImagePullBackOff" } });
  });

  it("no stagewatch on the cluster's prefix: asks again with the same key, then exit 3, outcome unknown, no verdict file", async () => {
    const web = deployment({ namespace: pipeline.namespace, name: "web", replicas: 2 });
    const root = checkout("nobody", web.manifest);
    const result = await job(root, "web k8s/ 2m", { STAGEWATCH_SUBJECT_PREFIX: `nobody-${pipeline.prefix}`, STAGEWATCH_ATTEMPTS: "2", STAGEWATCH_RETRY_DELAY: "1" });
    expect(result.status, output(result)).toBe(3);
    expect(result.stderr.match(/no stagewatch service is listening on nobody-\S+\.observe/g)).toHaveLength(2);
    expect(result.stderr).toContain("no stagewatch answered (attempt 1 of 2); asking again in 1s");
    expect(result.stdout).toBe("stagewatch web: warning: no stagewatch service answered after 2 attempts: the release's outcome is unknown\n");
    expect(existsSync(join(root, "stagewatch-verdict.json"))).toBe(false);
  });

  it("no STAGEWATCH_VERIFY_KEY on this one-account NATS: a healthy release is no success it can vouch for, exit 3 at once, no retry, no verdict file", async () => {
    const config = configMap(pipeline.namespace, "unverified-config");
    const root = checkout("unverified", config.manifest);
    const result = await job(root, "unverified k8s/ 2m", { STAGEWATCH_VERIFY_KEY: "", STAGEWATCH_RETRY_DELAY: "1" });
    expect(result.status, output(result)).toBe(3);
    expect(result.stderr).not.toContain("asking again");
    expect(result.stderr).toContain("stagewatch: exit 3: the verdict says succeeded, but it could not be verified as the service's");
    expect(result.stdout).toBe(
      "stagewatch unverified: error: the verdict says succeeded, but it could not be verified as the service's: set STAGEWATCH_VERIFY_KEY (see stagewatch's message above)\n",
    );
    expect(existsSync(join(root, "stagewatch-verdict.json"))).toBe(false);
  });

  it("bad input (a deployment name stagewatch refuses): exit 2 at once, no retry", async () => {
    const web = deployment({ namespace: pipeline.namespace, name: "web", replicas: 2 });
    const root = checkout("bad-input", web.manifest);
    const result = await job(root, "Web_1 k8s/ 2m", {});
    expect(result.status, output(result)).toBe(2);
    expect(result.stderr).toContain("deployment");
    expect(result.stderr).not.toContain("asking again");
    expect(result.stdout).toContain("bad input");
  });

  it("kubectl apply fails: exit 1 before anything is observed", async () => {
    const root = checkout("missing");
    const result = await job(root, "web no-such-dir/ 2m", {});
    expect(result.status, output(result)).toBe(1);
    expect(result.stdout).toBe("stagewatch web: error: kubectl apply -f no-such-dir/ failed\n");
    expect(result.stderr).not.toContain("observing");
  });
});

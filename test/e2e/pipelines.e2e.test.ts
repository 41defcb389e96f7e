/**
 * The pipelines of docs/user/observing.md ("Pipelines"), run as a CI job runs them: bash with
 * pipefail, the real kubectl and helm, the compiled `stagewatch observe -f -` reading what they
 * print, against `stagewatch serve` on the e2e cluster and NATS server.
 *
 * - `kubectl apply -o json|yaml` prints the objects as the API server stored them (a `kind: List`
 *   for several): the request names each object's `metadata.generation`, so the verdict is about
 *   the generation this apply produced.
 * - `helm get manifest` prints the rendered templates, without namespaces: `--namespace` (the
 *   release's) places them.
 * - The pipeline's exit code is observe's: 0 reached, 1 failed.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AppsV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { writeManifest } from "../cluster/stagewatch.ts";
import { Fault, kubeConfig } from "./support/cluster.ts";
import { configMap, deployment } from "./support/manifests.ts";
import { output } from "./support/cli.ts";
import { usePipelineEnvironment } from "./support/pipeline.ts";

const chart = fileURLToPath(new URL("../fixtures/charts/payments/", import.meta.url));

describe("kubectl and helm piped into stagewatch observe -f -", () => {
  const pipeline = usePipelineEnvironment("pipe");

  /** `k8s/` of a repository: the files `kubectl apply -f` reads. */
  function k8sDir(name: string, ...objects: object[]): string {
    const path = join(pipeline.dir, name, "k8s");
    mkdirSync(path, { recursive: true });
    writeManifest(join(path, "app.yaml"), objects);
    return path;
  }

  it("kubectl apply -o json, then -o yaml after a change: healthy, at the generation each apply produced", async () => {
    const config = configMap(pipeline.namespace, "web-config");
    const web = deployment({ namespace: pipeline.namespace, name: "web", replicas: 2 });
    const k8s = k8sDir("web", config.manifest, web.manifest);
    const step = (format: string) =>
      `kubectl apply -f ${k8s} -o ${format} | stagewatch observe -f - --deployment web --timeout 2m --json --subject-prefix ${pipeline.prefix}`;

    const first = await pipeline.sh.run(step("json"));
    expect(first.status, output(first)).toBe(0);
    expect(first.stderr).toMatch(/^observing 2 resources as \S+\n/);
    const firstVerdict = ObservationVerdict.parse(JSON.parse(first.stdout));
    expect(firstVerdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    expect(firstVerdict.resources.map((r) => r.identity)).toEqual([config.identity, { ...web.identity, generation: 1 }]);

    // A new image: the API server bumps the Deployment to generation 2 and kubectl prints it.
    k8sDir("web", config.manifest, deployment({ namespace: pipeline.namespace, name: "web", replicas: 2, image: "registry.example/web:2" }).manifest);
    const second = await pipeline.sh.run(step("yaml"));
    expect(second.status, output(second)).toBe(0);
    const secondVerdict = ObservationVerdict.parse(JSON.parse(second.stdout));
    expect(secondVerdict.resources.map((r) => r.identity)).toEqual([config.identity, { ...web.identity, generation: 2 }]);
    const stored = await kubeConfig().makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: pipeline.namespace, name: "web" });
    expect(stored.metadata?.generation).toBe(2);
    expect(stored.spec?.template.spec?.containers[0]?.image).toBe("registry.example/web:2");
  });

  it("a rollout stuck in ImagePullBackOff: the pipeline exits 1 and stdout names the reason", async () => {
    const search = deployment({ namespace: pipeline.namespace, name: "search", replicas: 1, fault: Fault.ImagePullBackOff, image: "registry.example/search:missing" });
    const k8s = k8sDir("search", search.manifest);

    const result = await pipeline.sh.run(`kubectl apply -f ${k8s} -o json | stagewatch observe -f - --deployment search --timeout 2m --subject-prefix ${pipeline.prefix}`);

    expect(result.status, output(result)).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^deployment search cannot reach healthy: Deployment ${pipeline.namespace}/search: failed: ImagePullBackOff: `));
  });

  it("helm upgrade --install, then helm get manifest: the release's objects in --namespace, bootstrap Job included", async () => {
    const result = await pipeline.sh.run(
      [
        // helm's release notes go to the log (stderr): stdout is the verdict alone.
        `helm upgrade --install payments ${chart} --namespace ${pipeline.namespace} >&2`,
        `helm get manifest payments --namespace ${pipeline.namespace} | stagewatch observe -f - --namespace ${pipeline.namespace} --deployment payments --timeout 2m --json --subject-prefix ${pipeline.prefix}`,
      ].join("\n"),
    );

    expect(result.status, output(result)).toBe(0);
    const verdict = ObservationVerdict.parse(JSON.parse(result.stdout));
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    // helm get manifest prints in Helm's install order (by kind), not the templates' order.
    expect(verdict.resources.map((r) => [r.identity, r.state])).toHaveLength(3);
    expect(verdict.resources.map((r) => [r.identity, r.state])).toEqual(
      expect.arrayContaining([
        [{ apiVersion: "v1", kind: "ConfigMap", namespace: pipeline.namespace, name: "payments-config" }, "settled"],
        [{ apiVersion: "apps/v1", kind: "Deployment", namespace: pipeline.namespace, name: "payments-api" }, "settled"],
        [{ apiVersion: "batch/v1", kind: "Job", namespace: pipeline.namespace, name: "payments-migrate-1", bootstrap: true }, "settled"],
      ]),
    );
  });

  it("helm upgrade to a broken image: the next revision's pipeline exits 1", async () => {
    const result = await pipeline.sh.run(
      [
        `helm upgrade payments ${chart} --namespace ${pipeline.namespace} --set fault=${Fault.ImagePullBackOff} --set image=registry.example/payments/api:missing >&2`,
        `helm get manifest payments --namespace ${pipeline.namespace} | stagewatch observe -f - --namespace ${pipeline.namespace} --deployment payments --timeout 2m --subject-prefix ${pipeline.prefix}`,
      ].join("\n"),
    );

    expect(result.status, output(result)).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^deployment payments cannot reach healthy: Deployment ${pipeline.namespace}/payments-api: failed: ImagePullBackOff: `));
  });
});

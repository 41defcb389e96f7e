/**
 * A failure the controller reports before it observes the generation (issue 35, part 5), on the
 * Kustomization CRD Flux releases (kustomize-controller v1.9.4, test/fixtures/crds), with status
 * written through `/status` as kustomize-controller writes it (no controller runs here): it moves
 * status.observedGeneration only when Ready turns True, so a first build that fails keeps the CRD's
 * default -1, and a later one the last good generation, beside Ready=False BuildFailed and
 * Reconciling=True ProgressingWithRetry, each condition stamped with the object's generation.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { ResourceIdentity } from "../../src/verdicts/contract/schemas.js";
import { KubeJsonError, kubeJson } from "../cluster/kubeJson.ts";
import { createNamespace, deleteNamespace, eventually, kubeConfig } from "./support/cluster.js";
import { removeKind } from "./support/crds.js";
import type { Manifest } from "./support/manifests.js";
import { apply, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const crdName = "kustomizations.kustomize.toolkit.fluxcd.io";
const apiVersion = "kustomize.toolkit.fluxcd.io/v1";
let stagewatch: StagewatchUnderTest;
let namespace: string;

async function installFluxKustomizationCrd(): Promise<void> {
  const crd = parse(readFileSync(new URL("../fixtures/crds/kustomize.toolkit.fluxcd.io_kustomizations.yaml", import.meta.url), "utf8")) as unknown;
  await kubeJson(kc, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).catch((error: unknown) => {
    if (!(error instanceof KubeJsonError && error.status === 409)) throw error;
  });
  await eventually(`${crdName} established and discovered`, async () => {
    const read = (await kubeJson(kc, "GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`)) as { status?: { conditions?: { type: string; status: string }[] } };
    if (!read.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) return undefined;
    const discovery = (await kubeJson(kc, "GET", `/apis/${apiVersion}`)) as { resources?: { name: string }[] };
    return discovery.resources?.some((resource) => resource.name === "kustomizations") ? true : undefined;
  });
}

beforeAll(async () => {
  [stagewatch, namespace] = await Promise.all([startStagewatch({ name: "fluxfailures" }), createNamespace("flux-failures")]);
  await installFluxKustomizationCrd();
});

afterAll(async () => {
  await stagewatch?.stop();
  await removeKind({ crdName });
  if (namespace) await deleteNamespace(namespace);
});

const kustomization = (name: string, path: string): Manifest => ({
  apiVersion,
  kind: "Kustomization",
  metadata: { name, namespace },
  spec: { interval: "10m", path, prune: true, wait: true, timeout: "4m30s", sourceRef: { kind: "GitRepository", name: "platform", namespace: "flux-system" } },
});

const identityOf = (manifest: Manifest): ResourceIdentity => ({ apiVersion, kind: "Kustomization", namespace: manifest.metadata.namespace, name: manifest.metadata.name });
const pathOf = (name: string) => `/apis/${apiVersion}/namespaces/${namespace}/kustomizations/${name}`;

type Stored = { metadata: { generation: number }; status?: { observedGeneration?: number } };

/** What kustomize-controller's patcher does: read the object, write its status subresource. */
async function writeStatus(name: string, status: (stored: Stored) => Record<string, unknown>): Promise<void> {
  const stored = (await kubeJson(kc, "GET", pathOf(name))) as Stored & Record<string, unknown>;
  await kubeJson(kc, "PUT", `${pathOf(name)}/status`, { ...stored, status: status(stored) });
}

const condition = (type: string, status: string, reason: string, message: string, observedGeneration: number) => ({
  type,
  status,
  reason,
  message,
  observedGeneration,
  lastTransitionTime: "2026-12-04T02:00:00Z",
});
const fetching = (revision: string) => `Fetching manifests for revision ${revision} with a timeout of 4m30s`;
const buildFailed =
  "kustomize build failed: accumulating resources: accumulation err='accumulating resources from 'deployment.yaml': open /tmp/kustomization-2514917341/deploy/payments/deployment.yaml: no such file or directory'";

describe("a Kustomization whose build fails", () => {
  it("fails at once with BuildFailed on its first reconcile, observedGeneration left at the CRD's -1", async () => {
    const manifest = kustomization("first-build", "./deploy/payments");
    await apply(kc, manifest);
    const created = (await kubeJson(kc, "GET", pathOf("first-build"))) as Stored;
    // The CRD's own default, not the test's: what a user sees before and after a failed reconcile.
    expect(created.status?.observedGeneration).toBe(-1);
    await writeStatus("first-build", (stored) => ({
      observedGeneration: stored.status?.observedGeneration,
      lastAttemptedRevision: "main@sha1:4f9c2b7e",
      conditions: [
        condition("Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:4f9c2b7e"), stored.metadata.generation),
        condition("Ready", "False", "BuildFailed", buildFailed, stored.metadata.generation),
      ],
    }));
    const started = Date.now();
    const verdict = await stagewatch.observer.observe(observeRequest({ deployment: "first-build", timeoutSeconds: 600, resources: [identityOf(manifest)] })).then((run) => run.verdict);
    expect(verdict).toMatchObject({ outcome: "failed", failure: { resource: identityOf(manifest), reason: "BuildFailed", message: buildFailed } });
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it("fails at once with BuildFailed on a later generation, observedGeneration left at the last good one", async () => {
    const manifest = kustomization("later-build", "./deploy/payments");
    await apply(kc, manifest);
    await writeStatus("later-build", (stored) => ({
      observedGeneration: stored.metadata.generation,
      lastAppliedRevision: "main@sha1:4f9c2b7e",
      lastAttemptedRevision: "main@sha1:4f9c2b7e",
      conditions: [condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: main@sha1:4f9c2b7e", stored.metadata.generation)],
    }));
    const changed = kustomization("later-build", "./deploy/payments-v2");
    await apply(kc, changed);
    await writeStatus("later-build", (stored) => {
      expect(stored.metadata.generation).toBe(2);
      return {
        observedGeneration: 1,
        lastAppliedRevision: "main@sha1:4f9c2b7e",
        lastAttemptedRevision: "main@sha1:9d1e0a35",
        conditions: [
          condition("Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:9d1e0a35"), 2),
          condition("Ready", "False", "BuildFailed", buildFailed, 2),
        ],
      };
    });
    const verdict = await stagewatch.observer.observe(
      observeRequest({ deployment: "later-build", timeoutSeconds: 600, resources: [{ ...identityOf(changed), generation: 2 }] }),
    ).then((run) => run.verdict);
    expect(verdict).toMatchObject({ outcome: "failed", failure: { reason: "BuildFailed", message: buildFailed } });
  }, 90_000);

  it("waits on a failure the controller retries, and its timeout names the condition's reason and message", async () => {
    const manifest = kustomization("health-check", "./deploy/payments");
    await apply(kc, manifest);
    const healthFailed = "timeout waiting for: [Deployment/payments/api status: 'InProgress']";
    await writeStatus("health-check", (stored) => ({
      observedGeneration: -1,
      conditions: [
        condition("Reconciling", "True", "ProgressingWithRetry", "Running health checks for revision main@sha1:4f9c2b7e with a timeout of 4m30s", stored.metadata.generation),
        condition("Ready", "False", "HealthCheckFailed", healthFailed, stored.metadata.generation),
      ],
    }));
    const verdict = await stagewatch.observer.observe(observeRequest({ deployment: "health-check", timeoutSeconds: 5, resources: [identityOf(manifest)] })).then((run) => run.verdict);
    expect(verdict.outcome).toBe("timed_out");
    expect(verdict.resources[0]).toMatchObject({ state: "pending", reason: "GenerationNotObserved" });
    expect(verdict.resources[0]?.message).toContain(`Ready=False HealthCheckFailed: ${healthFailed}`);
    expect(verdict.message).toContain("HealthCheckFailed");
  }, 90_000);
});

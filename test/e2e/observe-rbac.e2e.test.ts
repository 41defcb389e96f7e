/**
 * stagewatch's own identity refused by RBAC, against the real API server: the service runs with a
 * ServiceAccount token (TokenRequest) that may list and watch Deployments, ReplicaSets and Pods but
 * not Secrets. An observation declaring a Secret fails at once with the server's reason and words,
 * not at the end of its budget with "not seen in the cluster yet"; once the ClusterRole is granted,
 * the informer recovers by itself and a new observation of the same resources reaches healthy.
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api, type V1PolicyRule } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceIdentity } from "../../src/verdicts/contract/schemas.js";
import { createNamespace, deleteNamespace, eventually, kubeConfig } from "./support/cluster.js";
import { deployment, type Manifest } from "./support/manifests.js";
import { apply, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.js";

const admin = kubeConfig();
const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
const core = admin.makeApiClient(CoreV1Api);
const suffix = randomBytes(3).toString("hex");
const serviceAccountName = "stagewatch";
const cleanups: (() => Promise<unknown>)[] = [];
let namespace: string;
let stagewatch: StagewatchUnderTest;

/** A ClusterRole with `rules`, bound to the ServiceAccount; removed after the file. */
async function grant(name: string, rules: V1PolicyRule[]): Promise<void> {
  await rbac.createClusterRole({ body: { metadata: { name }, rules } });
  cleanups.push(() => rbac.deleteClusterRole({ name }));
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name: serviceAccountName, namespace }],
    },
  });
  cleanups.push(() => rbac.deleteClusterRoleBinding({ name }));
}

/** A kubeconfig for the e2e cluster whose only credential is a token of the ServiceAccount. */
async function serviceAccountKubeConfig(): Promise<KubeConfig> {
  const cluster = admin.getCurrentCluster();
  if (cluster === null) throw new Error("the e2e kubeconfig names no cluster");
  const request = await core.createNamespacedServiceAccountToken({
    name: serviceAccountName,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: "e2e" }],
    users: [{ name: serviceAccountName, token: request.status?.token ?? "" }],
    contexts: [{ name: "e2e", cluster: "e2e", user: serviceAccountName }],
    currentContext: "e2e",
  });
  return kc;
}

async function notReadyBecause(): Promise<string | undefined> {
  const response = await fetch(`${stagewatch.service.metricsUrl}/readyz`);
  return response.ok ? undefined : await response.text();
}

/** Milliseconds from the observation's start to its verdict, by the service's own clock. */
const verdictAfterMs = (verdict: { startedAt: string; decidedAt?: string }) => Date.parse(verdict.decidedAt!) - Date.parse(verdict.startedAt);

beforeAll(async () => {
  namespace = await createNamespace("observe-rbac");
  cleanups.push(() => deleteNamespace(namespace));
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: serviceAccountName } } });
  // The chart's read rules, less Secrets.
  await grant(`stagewatch-e2e-workloads-${suffix}`, [
    { apiGroups: ["apps"], resources: ["deployments", "replicasets"], verbs: ["get", "list", "watch"] },
    { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
  ]);
  stagewatch = await startStagewatch({ name: "rbac", kubeConfig: await serviceAccountKubeConfig() });
});

afterAll(async () => {
  await stagewatch?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

describe("a kind stagewatch may not list", () => {
  const budgetSeconds = 300;
  let ledger: { manifest: Manifest; identity: ResourceIdentity };
  let secret: ResourceIdentity;

  beforeAll(async () => {
    ledger = deployment({ namespace, name: "ledger", replicas: 2 });
    const secretManifest: Manifest = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "ledger-db", namespace },
      type: "Opaque",
      stringData: { password: "correct-horse-battery-staple" },
    };
    secret = { apiVersion: "v1", kind: "Secret", namespace, name: "ledger-db" };
    await apply(admin, ledger.manifest, secretManifest);
  });

  it("fails the observation at once with Forbidden, naming the Secret and the server's words", async () => {
    const run = await stagewatch.observer.observe(
      observeRequest({ deployment: "ledger", resources: [ledger.identity, secret], timeoutSeconds: budgetSeconds }),
    );
    const verdict = await run.verdict;

    const serverSays =
      `secrets is forbidden: User "system:serviceaccount:${namespace}:${serviceAccountName}" ` +
      'cannot list resource "secrets" in API group "" at the cluster scope';
    expect(verdict).toMatchObject({
      outcome: "failed",
      reached: "none",
      failure: { stage: "applied", resource: secret, reason: "Forbidden", message: `stagewatch cannot list secrets: ${serverSays}` },
    });
    expect(verdict.resources.find((resource) => resource.identity.kind === "Secret")).toMatchObject({ state: "failed", reason: "Forbidden" });
    expect(verdict.message).toBe(
      `deployment ledger cannot reach applied: Secret ${namespace}/ledger-db: failed: Forbidden: stagewatch cannot list secrets: ${serverSays}`,
    );
    // Failing "at once" means the verdict came while most of the budget was left.
    expect(verdictAfterMs(verdict)).toBeLessThan((budgetSeconds * 1000) / 10);
    // The informer goes on retrying, counted as any failed list, and the service says it is not ready.
    expect(await stagewatch.metric("stagewatch_watch_restarts_total", { kind: "core/Secret", cause: "error" })).toBeGreaterThanOrEqual(1);
    expect(await notReadyBecause()).toContain("informer caches not synced yet");
  });

  it("once Secrets are granted, the informer recovers by itself and a new observation reaches healthy", async () => {
    await grant(`stagewatch-e2e-secrets-${suffix}`, [{ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "watch"] }]);
    // The retry comes after the informer's backoff, at most 30 s.
    await eventually("stagewatch ready again", async () => ((await notReadyBecause()) === undefined ? true : undefined), { timeoutMs: 90_000 });

    const verdict = await (
      await stagewatch.observer.observe(observeRequest({ deployment: "ledger", resources: [ledger.identity, secret], timeoutSeconds: budgetSeconds }))
    ).verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    expect(verdict.resources.map((resource) => resource.state)).toEqual(["settled", "settled"]);
  });
});

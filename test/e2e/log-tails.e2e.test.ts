/**
 * The failing container's log tail, read for real: kwok serves the containers' logs (ClusterLogs,
 * test/cluster/kwok-logs.ts) and stagewatch reads them through the API server's pods/log, which
 * proxies to kwok as to a node's kubelet. A failing bootstrap Job's verdict carries its container's
 * last lines with the credentials it printed scrubbed out; a crash-looping Deployment's carries its
 * previous instance's; a service without --container-logs, or whose RBAC lacks pods/log, answers
 * with a note and the verdict stands.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { CoreV1Api, CustomObjectsApi, KubeConfig, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterLogs, writeCriLog } from "../cluster/kwok-logs.ts";
import { createNamespace, deleteNamespace, Fault, kubeConfig } from "./support/cluster.js";
import { deployment, job } from "./support/manifests.js";
import { apply, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const logDir = mkdtempSync(join(tmpdir(), "stagewatch-log-tails-"));
let stagewatch: StagewatchUnderTest;
let namespace: string;

// 25 lines, more than the 20 a tail keeps; the credentials come last, where a failing tool prints them.
const migrateLog = [
  ...Array.from({ length: 20 }, (_, i) => `migrate: applying 00${21 + i}_step ... ok`),
  "migrate: connecting to postgres://billing:hunter2@db.billing:5432/billing",
  "migrate: retrying with password=hunter2",
  "migrate: GET https://vault.internal/v1/db Authorization: Bearer s.7f3kQ9x2LmN0pR5tV8wZ",
  'ERROR:  relation "invoices" already exists',
  "migrate: migration 0042_add_invoices failed; rolled back",
];

async function podOf(namespace: string, prefix: string): Promise<string> {
  const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace });
  const pod = pods.items.find((p) => p.metadata?.name?.startsWith(`${prefix}-`));
  if (!pod?.metadata?.name) throw new Error(`no pod of ${prefix} in ${namespace}`);
  return pod.metadata.name;
}

beforeAll(async () => {
  [stagewatch, namespace] = await Promise.all([startStagewatch({ name: "logtails", containerLogs: true }), createNamespace("log-tails")]);
  writeCriLog(join(logDir, "migrate.log"), migrateLog);
  writeCriLog(join(logDir, "api.log"), ["api: starting"]);
  writeCriLog(join(logDir, "api-previous.log"), ["api: listening on :8080", "panic: DATABASE_URL is not set", "goroutine 1 [running]:"]);
  await kc.makeApiClient(CustomObjectsApi).createClusterCustomObject({
    group: "kwok.x-k8s.io",
    version: "v1alpha1",
    plural: "clusterlogs",
    body: clusterLogs(namespace, [
      { containers: ["schema-migrate"], logsFile: join(logDir, "migrate.log") },
      { containers: ["api"], logsFile: join(logDir, "api.log"), previousLogsFile: join(logDir, "api-previous.log") },
    ]),
  });
});

afterAll(async () => {
  await stagewatch?.stop();
  if (namespace) {
    await kc.makeApiClient(CustomObjectsApi).deleteClusterCustomObject({ group: "kwok.x-k8s.io", version: "v1alpha1", plural: "clusterlogs", name: namespace }).catch(() => undefined);
    await deleteNamespace(namespace);
  }
  rmSync(logDir, { recursive: true, force: true });
});

describe("the failing container's log tail", () => {
  it("a failing bootstrap Job's verdict carries its container's last 20 lines, read through pods/log, credentials scrubbed", async () => {
    const migrate = job({ namespace, name: "schema-migrate", bootstrapLabel: true, fault: Fault.Error, terminationMessage: "migration failed" });
    await apply(kc, migrate.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "billing", resources: [migrate.identity], logs: true }));
    const verdict = await run.verdict;
    const pod = await podOf(namespace, "schema-migrate");

    expect(verdict).toMatchObject({ outcome: "failed", failure: { stage: "bootstrapped", reason: "BackoffLimitExceeded" } });
    expect(verdict.failure?.logNote).toBeUndefined();
    expect(verdict.failure?.logTail).toEqual({
      pod,
      container: "schema-migrate",
      init: false,
      previous: false,
      lines: [
        ...migrateLog.slice(5, 20),
        "migrate: connecting to postgres://[redacted]@db.billing:5432/billing",
        "migrate: retrying with password=[redacted]",
        "migrate: GET https://vault.internal/v1/db Authorization: Bearer [redacted]",
        'ERROR:  relation "invoices" already exists',
        "migrate: migration 0042_add_invoices failed; rolled back",
      ],
      truncated: true,
    });
    expect(JSON.stringify(verdict)).not.toMatch(/hunter2|s\.7f3kQ9x2LmN0pR5tV8wZ/);
    // Stored with the verdict before it was published: every replica's `get` answers the same tail.
    expect((await stagewatch.observer.get(run.observationId))?.failure?.logTail).toEqual(verdict.failure?.logTail);
  });

  it("a Deployment failing on CrashLoopBackOff carries its container's previous instance's log", async () => {
    const api = deployment({ namespace, name: "api", replicas: 1, fault: Fault.CrashLoopBackOff });
    await apply(kc, api.manifest);
    const verdict = await (await stagewatch.observer.observe(observeRequest({ deployment: "api", resources: [api.identity], failOn: ["CrashLoopBackOff"], logs: true }))).verdict;

    expect(verdict).toMatchObject({ outcome: "failed", failure: { reason: "CrashLoopBackOff" } });
    expect(verdict.failure?.logTail).toMatchObject({
      container: "api",
      previous: true,
      lines: ["api: listening on :8080", "panic: DATABASE_URL is not set", "goroutine 1 [running]:"],
      truncated: false,
    });
  });

  it("a service whose RBAC lacks pods/log: the API server's refusal becomes a note, and the verdict stands", async () => {
    const name = `stagewatch-e2e-no-logs-${randomBytes(3).toString("hex")}`;
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: "stagewatch" } } });
    // The chart's read rules for Jobs and pods, without containerLogs.enabled.
    await rbac.createClusterRole({
      body: {
        metadata: { name },
        rules: [
          { apiGroups: ["batch"], resources: ["jobs"], verbs: ["get", "list", "watch"] },
          { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
        subjects: [{ kind: "ServiceAccount", name: "stagewatch", namespace }],
      },
    });
    const token = await core.createNamespacedServiceAccountToken({ name: "stagewatch", namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
    const asServiceAccount = new KubeConfig();
    asServiceAccount.loadFromOptions({
      clusters: [{ ...kc.getCurrentCluster()!, name: "e2e" }],
      users: [{ name: "stagewatch", token: token.status?.token ?? "" }],
      contexts: [{ name: "e2e", cluster: "e2e", user: "stagewatch" }],
      currentContext: "e2e",
    });
    const refused = await startStagewatch({ name: "refusedlogs", kubeConfig: asServiceAccount, containerLogs: true });
    try {
      const migrate = job({ namespace, name: "schema-migrate" });
      const verdict = await (await refused.observer.observe(observeRequest({ deployment: "billing", resources: [{ ...migrate.identity, bootstrap: true }], logs: true }))).verdict;
      expect(verdict).toMatchObject({ outcome: "failed", failure: { reason: "BackoffLimitExceeded" } });
      expect(verdict.failure?.logTail).toBeUndefined();
      expect(verdict.failure?.logNote).toMatch(
        new RegExp(`^log of pod (schema-migrate-\\w+) container schema-migrate not read: Forbidden: pods "\\1" is forbidden: User "system:serviceaccount:${namespace}:stagewatch" cannot get resource "pods/log"`),
      );
    } finally {
      await refused.stop();
      await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
      await rbac.deleteClusterRole({ name }).catch(() => undefined);
    }
  });

  it("a service without --container-logs answers a request's logs with a note, and the verdict stands", async () => {
    const plain = await startStagewatch({ name: "nologs" });
    try {
      const migrate = job({ namespace, name: "schema-migrate" });
      const verdict = await (await plain.observer.observe(observeRequest({ deployment: "billing", resources: [{ ...migrate.identity, bootstrap: true }], logs: true }))).verdict;
      expect(verdict).toMatchObject({ outcome: "failed", failure: { reason: "BackoffLimitExceeded" } });
      expect(verdict.failure?.logTail).toBeUndefined();
      expect(verdict.failure?.logNote).toMatch(/^log of pod schema-migrate-\w+ container schema-migrate not read: the service does not read container logs/);
    } finally {
      await plain.stop();
    }
  });
});

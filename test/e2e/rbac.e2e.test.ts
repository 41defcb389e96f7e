/**
 * The chart's RBAC is enough and no more. The chart's ServiceAccount and roles are installed for
 * real, a token for that ServiceAccount is requested (TokenRequest, as the kubelet does for a pod),
 * and `stagewatch serve` runs with a kubeconfig holding only that token. It must observe a
 * Deployment, a ConfigMap and a Secret to healthy; the same token must be refused a read of the
 * Secret and anything that writes. Both ways the chart installs: cluster-wide with a ClusterRole,
 * and namespaced (`namespaces` set) with Roles there and the service started with --namespaces.
 *
 * What RBAC cannot do is pinned down too: `list` on Secrets, which an informer needs, also lets
 * the token list Secret data. stagewatch itself lists them as PartialObjectMetadata only.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  KubeConfig,
  type V1ConfigMap,
  type V1Deployment,
  type V1Secret,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureHelm, renderChart } from "../cluster/helm.ts";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, kubeConfig, tokenKubeconfig } from "./support/cluster.ts";
import { installChartIdentity } from "./support/chartIdentity.ts";
import { useServes } from "./support/serve.ts";

const HELM_BUILD_TIMEOUT_MS = 20 * 60_000;

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
}

function appObjects(namespace: string): [V1Deployment, V1ConfigMap, V1Secret] {
  const labels = { app: "payments-api" };
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "payments-api", namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "api", image: "registry.example/payments-api:1.4.2" }] } },
      },
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "payments-config", namespace }, data: { LOG_LEVEL: "info" } },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "payments-db", namespace },
      type: "Opaque",
      stringData: { password: "correct-horse-battery-staple" },
    },
  ];
}

const modes = [
  { mode: "cluster-wide (ClusterRole)", namespaced: false },
  { mode: "namespaced (Roles, --namespaces)", namespaced: true },
];

describe.each(modes)("stagewatch serve with only the chart's ServiceAccount token, $mode", ({ namespaced }) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  let release: string;
  let app: string;
  let dir: string;
  let token: KubeConfig;
  let kubeconfigPath: string;
  const serves = useServes();

  beforeAll(async () => {
    await ensureHelm();
    dir = scratchDir("rbac");
    release = await createNamespace("rbac-release");
    app = await createNamespace("rbac-app");
    cleanups.push(() => deleteNamespace(release), () => deleteNamespace(app));

    const releaseName = `rbac-${randomBytes(3).toString("hex")}`;
    const identity = await installChartIdentity(
      renderChart({ releaseName, namespace: release, set: { "rbac.secretNamespaces": [app], ...(namespaced && { namespaces: [app] }) } }),
      release,
    );
    cleanups.push(() => identity.remove());
    const core = kubeConfig().makeApiClient(CoreV1Api);
    kubeconfigPath = join(dir, "kubeconfig");
    token = tokenKubeconfig(kubeconfigPath, identity.token);

    const [deployment, configMap, secret] = appObjects(app);
    await kubeConfig().makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: app, body: deployment });
    await core.createNamespacedConfigMap({ namespace: app, body: configMap });
    await core.createNamespacedSecret({ namespace: app, body: secret });
  }, HELM_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.allSettled(cleanups.map((cleanup) => cleanup()));
  });

  it("observes a Deployment, a ConfigMap and a Secret to healthy", async () => {
    const service = await serves.start({ name: "rbac", kubeconfigPath, args: [`--secret-namespaces=${app}`, ...(namespaced ? [`--namespaces=${app}`] : [])] });
    const manifest = writeManifest(join(dir, "payments.yaml"), appObjects(app));
    const result = await runStagewatch(
      ["observe", "-f", manifest, "--deployment", "payments", "--require", "healthy", "--timeout", "90s", `--subject-prefix=${service.prefix}`, "--json"],
      { cwd: dir },
    );
    expect(result.status, `${result.stderr}\n${result.stdout}`).toBe(0);
    const verdict = JSON.parse(result.stdout) as { outcome: string; reached: string; resources: { state: string }[] };
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    expect(verdict.resources.map((resource) => resource.state)).toEqual(["settled", "settled", "settled"]);
  }, 150_000);

  it("is refused a read of the Secret and every write", async () => {
    const core = token.makeApiClient(CoreV1Api);
    const apps = token.makeApiClient(AppsV1Api);
    expect(await statusOf(core.readNamespacedSecret({ name: "payments-db", namespace: app }))).toBe(403);
    expect(await statusOf(core.readNamespacedConfigMap({ name: "payments-config", namespace: app }))).toBe(403);
    expect(
      await statusOf(core.createNamespacedConfigMap({ namespace: app, body: { metadata: { name: "planted" } } })),
    ).toBe(403);
    expect(await statusOf(apps.deleteNamespacedDeployment({ name: "payments-api", namespace: app }))).toBe(403);
    expect(
      await statusOf(apps.patchNamespacedDeploymentScale({ name: "payments-api", namespace: app, body: { spec: { replicas: 0 } } })),
    ).toBe(403);
    expect(await statusOf(core.listNode())).toBe(403);
    expect(await statusOf(core.readNamespacedPodLog({ name: "any", namespace: app }))).toBe(403);
  });

  it("can still list Secrets where it checks them (rbac.secretNamespaces): RBAC has no metadata-only verb (documented, not hidden)", async () => {
    const core = token.makeApiClient(CoreV1Api);
    expect(await statusOf(core.listNamespacedSecret({ namespace: app }))).toBe(200);
    // There only, cluster-wide install or not: neither other namespaces nor the cluster-wide list.
    expect(await statusOf(core.listNamespacedSecret({ namespace: release }))).toBe(403);
    expect(await statusOf(core.listSecretForAllNamespaces())).toBe(403);
  });
});

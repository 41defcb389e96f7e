// Exact API request counts per tool: each tool runs as a ServiceAccount of its own, and one
// FlowSchema per (tool, verb) sends its requests to the priority level they would reach anyway
// (workload-low, where the built-in `service-accounts` FlowSchema puts them), so the API server's
// `apiserver_flowcontrol_dispatched_requests_total{flow_schema=...}` counts them without changing
// how they are throttled. Discovery (non-resource URLs such as /api, /apis, /version) is a schema
// of its own per tool.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CoreV1Api, FlowcontrolApiserverV1Api, KubeConfig, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { Agent, fetch as undiciFetch } from "undici";
import { scrape, total } from "./metrics.ts";

export const verbs = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"] as const;
export type Counts = Record<(typeof verbs)[number] | "discovery", number>;

export interface ApiServerLoad {
  cpuSeconds: number;
  /**
   * apiserver_longrunning_requests{verb="WATCH"}: the watch requests in flight, the gauge that
   * replaced apiserver_registered_watchers when it was removed in 1.25 (kubernetes/kubernetes#110337).
   */
  watches: number;
}

export interface Tool {
  name: string;
  kubeconfigPath: string;
}

export interface Accounting {
  tools: Record<string, Tool>;
  /** Requests each tool has made so far, by verb. */
  counts(): Promise<Record<string, Counts>>;
  /** The API server's own CPU seconds so far and the watches it holds open now (every client's). */
  apiServer(): Promise<ApiServerLoad>;
  /** Watchers the API server has closed so far for not taking their events in time, by resource (any client's). */
  terminatedWatchers(): Promise<Record<string, number>>;
  cleanup(): Promise<void>;
}

const flowSchemaName = (run: string, tool: string, verb: string) => `bench-${run}-${tool}-${verb}`;

/**
 * `tools` maps a tool's name to its ClusterRole: `read` (get, list, watch on everything) or
 * `admin` (cluster-admin, as a CI deployer has). Kubeconfigs are written into `dir`.
 */
export async function setUpAccounting(admin: KubeConfig, run: string, namespace: string, dir: string, tools: Record<string, "read" | "admin">): Promise<Accounting> {
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const flow = admin.makeApiClient(FlowcontrolApiserverV1Api);
  const readRole = `bench-${run}-read`;
  await rbac.createClusterRole({ body: { metadata: { name: readRole }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["get", "list", "watch"] }] } });
  const cluster = admin.getCurrentCluster()!;
  const created: Record<string, Tool> = {};
  for (const [tool, role] of Object.entries(tools)) {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: tool } } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: `bench-${run}-${tool}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role === "read" ? readRole : "cluster-admin" },
        subjects: [{ kind: "ServiceAccount", name: tool, namespace }],
      },
    });
    const subject = { kind: "ServiceAccount", serviceAccount: { name: tool, namespace } };
    for (const verb of [...verbs, "discovery"]) {
      const rule =
        verb === "discovery"
          ? { subjects: [subject], nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }] }
          : { subjects: [subject], resourceRules: [{ verbs: [verb], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }] };
      await flow.createFlowSchema({
        body: {
          metadata: { name: flowSchemaName(run, tool, verb) },
          spec: { matchingPrecedence: 500, priorityLevelConfiguration: { name: "workload-low" }, distinguisherMethod: { type: "ByUser" }, rules: [rule] },
        },
      });
    }
    const token = await core.createNamespacedServiceAccountToken({ name: tool, namespace, body: { spec: { audiences: [], expirationSeconds: 3 * 3600 } } });
    const kubeconfigPath = join(dir, `kubeconfig-${tool}`);
    writeFileSync(
      kubeconfigPath,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "bench", cluster: { server: cluster.server, "certificate-authority-data": cluster.caData } }],
        users: [{ name: tool, user: { token: token.status?.token } }],
        contexts: [{ name: "bench", context: { cluster: "bench", user: tool } }],
        "current-context": "bench",
      }),
      { mode: 0o600 },
    );
    created[tool] = { name: tool, kubeconfigPath };
  }
  const user = admin.getCurrentUser()!;
  const dispatcher = new Agent({ connect: { ca: Buffer.from(cluster.caData ?? "", "base64").toString() } });
  const fetchApi = ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch;
  const serverMetrics = () => scrape(`${cluster.server}/metrics`, { Authorization: `Bearer ${user.token}` }, fetchApi);
  return {
    tools: created,
    async counts() {
      const samples = await serverMetrics();
      const result: Record<string, Counts> = {};
      for (const tool of Object.keys(tools)) {
        result[tool] = Object.fromEntries(
          [...verbs, "discovery"].map((verb) => [verb, total(samples, "apiserver_flowcontrol_dispatched_requests_total", { flow_schema: flowSchemaName(run, tool, verb) })]),
        ) as Counts;
      }
      return result;
    },
    async apiServer() {
      const samples = await serverMetrics();
      return { cpuSeconds: total(samples, "process_cpu_seconds_total"), watches: total(samples, "apiserver_longrunning_requests", { verb: "WATCH" }) };
    },
    async terminatedWatchers() {
      const terminated: Record<string, number> = {};
      for (const sample of await serverMetrics()) {
        if (sample.name !== "apiserver_terminated_watchers_total") continue;
        const resource = [sample.labels["group"], sample.labels["resource"]].filter(Boolean).join("/");
        terminated[resource] = (terminated[resource] ?? 0) + sample.value;
      }
      return terminated;
    },
    async cleanup() {
      for (const tool of Object.keys(tools)) {
        for (const verb of [...verbs, "discovery"]) await flow.deleteFlowSchema({ name: flowSchemaName(run, tool, verb) }).catch(() => undefined);
        await rbac.deleteClusterRoleBinding({ name: `bench-${run}-${tool}` }).catch(() => undefined);
      }
      await rbac.deleteClusterRole({ name: readRole }).catch(() => undefined);
      await dispatcher.close();
    },
  };
}

export function difference(after: Counts, before: Counts): Counts {
  return Object.fromEntries(Object.entries(after).map(([verb, n]) => [verb, n - before[verb as keyof Counts]])) as Counts;
}

export const sum = (counts: Counts) => Object.values(counts).reduce((a, b) => a + b, 0);

// Local mode's engine over a scripted API server (real time: the watches are answered at once):
// it lists and watches only in the declared namespaces, only the kinds the declared resources
// need, decides as the service does, and a refused list fails the resource naming verb and resource.
import { KubeConfig } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { pod, running } from "../../../test/fixtures/kube/pods.js";
import { deployment, replicaSet, rollingOutDeployment } from "../../../test/fixtures/kube/workloads.js";
import { silentLogger } from "../../logging/index.js";
import { ScriptedCluster } from "../../observations/testing/index.js";
import { KubeRequestError, builtinMappings, collectionPath } from "../../streams/index.js";
import { ScriptedTransport } from "../../streams/testing/index.js";
import { ObservationRequest } from "../../verdicts/index.js";
import { observeLocally, type LocalObservation } from "./localObserver.js";

const running$: LocalObservation[] = [];
afterEach(() => {
  for (const observation of running$.splice(0)) observation.close();
});

function cluster(): { transport: ScriptedTransport; cluster: ScriptedCluster } {
  const transport = new ScriptedTransport();
  // The namespaces a scoped informer lists; the collections cluster-wide are served too, so a
  // cluster-wide request would succeed here and only the recorded paths tell it apart.
  const scripted = new ScriptedCluster(transport, ["payments"]);
  transport.onGet("/version", () => ({ major: "1", minor: "37", gitVersion: "v1.37.2" }));
  const api = deployment({ replicas: 2 });
  const rs = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
  scripted.put(api);
  scripted.put(rs);
  scripted.put(pod({ name: "api-7f9c6d8b5-x2k8p", owner: rs, containers: [running("api")] }));
  scripted.put(pod({ name: "api-7f9c6d8b5-q9v4m", owner: rs, containers: [running("api")] }));
  return { transport, cluster: scripted };
}

const request = ObservationRequest.parse({
  key: "local/payments",
  deployment: "payments",
  require: "healthy",
  timeoutSeconds: 30,
  defaultNamespace: "payments",
  resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 }],
});

async function observe(transport: ScriptedTransport): Promise<LocalObservation> {
  const observation = await observeLocally(request, { kubeConfig: new KubeConfig(), logger: silentLogger, transport });
  running$.push(observation);
  return observation;
}

describe("observe in local mode", () => {
  it("decides a rolled-out Deployment, having listed and watched only in its namespace", async () => {
    const { transport } = cluster();
    const observation = await observe(transport);
    const verdict = await observation.verdict;
    expect(verdict.outcome).toBe("succeeded");
    expect(verdict.reached).toBe("healthy");
    const paths = [...new Set(transport.requests.map((r) => r.path))].sort();
    expect(paths).toEqual([
      "/api/v1/namespaces/payments/events",
      "/api/v1/namespaces/payments/pods",
      "/apis/apps/v1/namespaces/payments/deployments",
      "/apis/apps/v1/namespaces/payments/replicasets",
      "/version",
    ]);
  });

  it("every event of the observation reaches the follower in order, the verdict last", async () => {
    const { transport } = cluster();
    const observation = await observe(transport);
    const types: string[] = [];
    for await (const event of observation.progress) types.push(event.type);
    expect(types.at(-1)).toBe("verdict");
    expect(types.filter((type) => type === "verdict")).toHaveLength(1);
    expect(types).toContain("stage");
  });

  it("a list of pods the user may not make fails a Deployment still rolling out at once, naming verb and resource", async () => {
    const { transport, cluster: scripted } = cluster();
    scripted.put(rollingOutDeployment({ replicas: 2, ready: 0 }));
    const pods = builtinMappings.find((m) => m.kindKey === "core/Pod")!;
    const path = collectionPath(pods, "payments");
    const statusMessage = `pods is forbidden: User "system:serviceaccount:ci:deployer" cannot list resource "pods" in API group "" in the namespace "payments"`;
    transport.onGet(path, () => {
      throw new KubeRequestError(`GET ${path}: 403 Forbidden: ${statusMessage}`, { status: 403, reason: "Forbidden", statusMessage });
    });
    const verdict = await (await observe(transport)).verdict;
    expect(verdict.outcome).toBe("failed");
    expect(verdict.failure?.reason).toBe("Forbidden");
    expect(verdict.message).toContain("list");
    expect(verdict.message).toContain("pods");
  });

  it("cancel ends it with a cancelled verdict (Ctrl-C)", async () => {
    const { transport, cluster: scripted } = cluster();
    scripted.put(deployment({ replicas: 2, status: null }));
    const observation = await observe(transport);
    const cancelled = await observation.cancel("interrupted (SIGINT)");
    expect(cancelled?.outcome).toBe("cancelled");
    expect((await observation.verdict).outcome).toBe("cancelled");
  });

  it("an API server that cannot be reached is no observer: nothing is watched", async () => {
    const transport = new ScriptedTransport();
    transport.onGet("/version", () => {
      throw new KubeRequestError("GET /version: connect ECONNREFUSED 127.0.0.1:6443");
    });
    await expect(observeLocally(request, { kubeConfig: new KubeConfig(), logger: silentLogger, transport })).rejects.toThrow(/cannot reach the API server/);
    expect(transport.requests.map((r) => r.path)).toEqual(["/version"]);
  });
});

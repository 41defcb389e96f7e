/**
 * The API server restarts in the middle of an observation (an upgrade, a control-plane node
 * reboot): every watch stagewatch holds ends, and the observation must still end correctly on
 * what the cluster does afterwards. The restart would disturb every other test file, so this one
 * runs on a cluster of its own, started here.
 */
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalCluster, type LocalCluster } from "../cluster/local-cluster.ts";
import { REPO_ROOT } from "../cluster/stagewatch.ts";
import { eventually, Fault } from "./support/cluster.js";
import { deployment } from "./support/manifests.js";
import { apply, nextReading, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.js";

// The cluster's own `default` namespace: nothing else runs on this cluster.
const namespace = "default";
let cluster: LocalCluster;
let kc: KubeConfig;
let stagewatch: StagewatchUnderTest;

beforeAll(async () => {
  // One fixed directory, wiped by each start: the last run's logs stay for a look, and runs do not
  // pile up a data directory each.
  cluster = await startLocalCluster({ stateDir: join(REPO_ROOT, ".stagewatch", "e2e", "apiserver-restart"), log: () => {} });
  kc = new KubeConfig();
  kc.loadFromFile(cluster.kubeconfigPath);
  stagewatch = await startStagewatch({ name: "restart", kubeConfig: kc, natsUrl: cluster.natsUrl });
}, 300_000);

afterAll(async () => {
  await stagewatch?.stop();
  await cluster?.stop();
});

describe("kube-apiserver restart", () => {
  it("an observation in progress across an API server restart still reaches healthy on the rollout that follows it", { timeout: 300_000 }, async () => {
    // v1's pods never become ready: the observation is pending, its watches open, when the
    // API server goes away.
    const v1 = deployment({ namespace, name: "api", replicas: 2, fault: Fault.NeverReady, image: "registry.example/api:1" });
    await apply(kc, v1.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "api", resources: [v1.identity], timeoutSeconds: 240 }));
    const progress = run.progress[Symbol.asyncIterator]();
    await nextReading(progress, (reading) => reading.reason === "ContainersNotReady");
    const restartsBefore = await stagewatch.metric("stagewatch_watch_restarts_total");

    await cluster.restartApiServer();

    // Everything that makes it healthy happens after the restart, so only resumed watches can see it.
    const v2 = deployment({ namespace, name: "api", replicas: 2, image: "registry.example/api:2" });
    await apply(kc, v2.manifest);
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "healthy",
      resources: [{ identity: v1.identity, state: "settled", message: "2/2 replicas ready, 2 updated" }],
    });
    expect(verdict.message).toBe("deployment api reached healthy: 1 resource settled");
    // Deployments, ReplicaSets and Pods were watched when the server went away: each watch restarted.
    const restarts = await eventually("watch restarts counted", async () => {
      const now = await stagewatch.metric("stagewatch_watch_restarts_total");
      return now > restartsBefore ? now : undefined;
    });
    expect(restarts).toBeGreaterThan(restartsBefore);
    for (const kind of ["apps/Deployment", "apps/ReplicaSet", "core/Pod"]) {
      expect(await stagewatch.metric("stagewatch_watch_restarts_total", { kind }), kind).toBeGreaterThan(0);
    }
  });
});

/**
 * Workloads observed to healthy through NATS, against the real control plane: the controllers
 * write the status, kwok plays the kubelet, stagewatch decides. Deployments (and a sibling that
 * shares their labels), a rollout to a new template, StatefulSets, DaemonSets and a custom
 * resource whose controller is the test itself.
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { afterAll, describe, expect, it } from "vitest";
import { Fault, kubeConfig } from "./support/cluster.js";
import { installKind, removeKind } from "./support/crds.js";
import { daemonSet, deployment, statefulSet } from "./support/manifests.js";
import { apply, collect, nextReading, observeRequest, observeInOwnNamespace, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("workloads", (file) => ({ stagewatch, namespace } = file));

describe("Deployments", () => {
  it("a Deployment whose replicas all become ready is healthy", async () => {
    const api = deployment({ namespace, name: "api", replicas: 3 });
    await apply(kc, api.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "shop", resources: [api.identity] }));
    const { events, verdict } = await collect(run);

    expect(verdict).toMatchObject({
      observationId: run.observationId,
      deployment: "shop",
      required: "healthy",
      reached: "healthy",
      outcome: "succeeded",
      resources: [{ identity: api.identity, state: "settled" }],
    });
    expect(verdict.failure).toBeUndefined();
    expect(verdict.message).toBe("deployment shop reached healthy: 1 resource settled");
    expect(verdict.resources[0]?.message).toMatch(/3\/3 replicas ready/);
    expect(events.filter((e) => e.type === "stage").map((e) => e.stage)).toEqual(["applied", "bootstrapped", "healthy"]);
    expect(events.at(-1)).toMatchObject({ type: "verdict", verdict });
  });

  it("a sibling Deployment with the same labels in ImagePullBackOff does not fail ours", async () => {
    // Both select `app: web`; only owner references tell their pods apart.
    const ours = deployment({ namespace, name: "web", app: "web" });
    const sibling = deployment({ namespace, name: "web-canary", app: "web", fault: Fault.ImagePullBackOff });
    await apply(kc, sibling.manifest, ours.manifest);

    const [canary, run] = await Promise.all([
      stagewatch.observer.observe(observeRequest({ deployment: "web-canary", resources: [sibling.identity] })),
      stagewatch.observer.observe(observeRequest({ deployment: "web", resources: [ours.identity] })),
    ]);
    // The sibling really is broken, and its pods carry our Deployment's labels.
    expect(await canary.verdict).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff", resource: sibling.identity } });
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy", resources: [{ identity: ours.identity, state: "settled" }] });
    expect(verdict.message).toBe("deployment web reached healthy: 1 resource settled");
    expect(JSON.stringify(verdict)).not.toContain("ImagePullBackOff");
  });

  it("a Deployment updated to a new template is not healthy on the old ReplicaSet's status", async () => {
    const v1 = deployment({ namespace, name: "ledger", replicas: 2, image: "registry.example/ledger:1" });
    const [applied1] = await apply(kc, v1.manifest);
    const first = await stagewatch.observer.observe(
      observeRequest({ deployment: "ledger", resources: [{ ...v1.identity, generation: applied1!.metadata!.generation! }] }),
    );
    expect(await first.verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });

    // v2's pods run but never pass their readiness probe; the old ReplicaSet's two ready pods stay.
    const v2 = deployment({ namespace, name: "ledger", replicas: 2, image: "registry.example/ledger:2", fault: Fault.NeverReady });
    const [applied2] = await apply(kc, v2.manifest);
    const generation = applied2!.metadata!.generation!;
    expect(generation).toBe(2);
    const second = await stagewatch.observer.observe(
      observeRequest({ deployment: "ledger", resources: [{ ...v2.identity, generation }], timeoutSeconds: 15 }),
    );
    const verdict = await second.verdict;
    expect(verdict).toMatchObject({
      outcome: "timed_out",
      reached: "bootstrapped",
      resources: [{ identity: { ...v2.identity, generation }, state: "pending", reason: "ContainersNotReady" }],
    });
    // maxSurge 25% of 2 rounds up to 1 new pod, maxUnavailable rounds down to 0: the two old
    // pods stay ready and the one new pod never does.
    expect(verdict.message).toBe(
      `deployment ledger did not reach healthy within 15s: Deployment ${namespace}/ledger: 2/2 replicas ready, 1 updated, 2 old replicas; ` +
        `pod ${newPodName(verdict.message)}: ContainersNotReady: containers with unready status: [ledger]`,
    );
    // The pod named is the new template's, not one of the old ready ones.
    expect(await podsOf(namespace, "ledger", "registry.example/ledger:2")).toEqual([newPodName(verdict.message)]);
  });
});

describe("StatefulSets and DaemonSets", () => {
  it("a StatefulSet rolls out to healthy", async () => {
    const db = statefulSet({ namespace, name: "db", replicas: 3 });
    await apply(kc, db.manifest);
    const verdict = await (await stagewatch.observer.observe(observeRequest({ deployment: "db", resources: [db.identity] }))).verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy", resources: [{ identity: db.identity, state: "settled" }] });
    expect(verdict.resources[0]?.message).toMatch(/3\/3 replicas ready/);
    expect(verdict.message).toBe("deployment db reached healthy: 1 resource settled");
  });

  it("a DaemonSet rolls out to healthy on every node", async () => {
    const agent = daemonSet({ namespace, name: "log-agent" });
    await apply(kc, agent.manifest);
    const verdict = await (await stagewatch.observer.observe(observeRequest({ deployment: "log-agent", resources: [agent.identity] }))).verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy", resources: [{ identity: agent.identity, state: "settled" }] });
    // The harness runs three kwok Nodes.
    expect(verdict.resources[0]?.message).toMatch(/3\/3/);
    expect(verdict.message).toBe("deployment log-agent reached healthy: 1 resource settled");
  });

  it("a StatefulSet and a Deployment together: healthy once both are", async () => {
    const cache = statefulSet({ namespace, name: "cache", replicas: 2 });
    const front = deployment({ namespace, name: "front", replicas: 2 });
    await apply(kc, cache.manifest, front.manifest);
    const verdict = await (await stagewatch.observer.observe(observeRequest({ deployment: "front", resources: [cache.identity, front.identity] }))).verdict;
    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "healthy",
      resources: [
        { identity: cache.identity, state: "settled" },
        { identity: front.identity, state: "settled" },
      ],
    });
    expect(verdict.message).toBe("deployment front reached healthy: 2 resources settled");
  });
});

describe("a custom resource with a Ready condition", () => {
  const customObjects = kc.makeApiClient(CustomObjectsApi);
  const group = `observe-${randomBytes(4).toString("hex")}.e2e.stagewatch.io`;
  const databases = { crdName: `databases.${group}` };

  afterAll(async () => {
    await removeKind(databases);
  });

  it("pending with no status, settled once its controller writes Ready=True for the current generation", async () => {
    await installKind(group, "Database", "databases");
    const identity = { apiVersion: `${group}/v1`, kind: "Database", namespace, name: "orders" };
    const [created] = await apply(kc, { apiVersion: identity.apiVersion, kind: identity.kind, metadata: { name: "orders", namespace }, spec: { size: "10Gi" } });

    const run = await stagewatch.observer.observe(observeRequest({ deployment: "orders", resources: [identity] }));
    const firstReading = await nextReading(run.progress[Symbol.asyncIterator]());
    expect(firstReading).toMatchObject({ identity, state: "pending", reason: "AwaitingStatus", message: "no status written yet" });
    expect(await stagewatch.observer.get(run.observationId)).toMatchObject({ outcome: "in_progress", reached: "bootstrapped" });

    // The test plays the Database controller: status through the status subresource.
    await customObjects.replaceNamespacedCustomObjectStatus({
      group,
      version: "v1",
      namespace,
      plural: "databases",
      name: "orders",
      body: {
        apiVersion: identity.apiVersion,
        kind: identity.kind,
        metadata: { name: "orders", namespace, resourceVersion: created!.metadata!.resourceVersion },
        spec: { size: "10Gi" },
        status: {
          observedGeneration: created!.metadata!.generation,
          conditions: [
            {
              type: "Ready",
              status: "True",
              reason: "Provisioned",
              message: "database orders is accepting connections",
              observedGeneration: created!.metadata!.generation,
              lastTransitionTime: new Date().toISOString(),
            },
          ],
        },
      },
    });
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "healthy",
      resources: [{ identity, state: "settled", message: "Ready=True: database orders is accepting connections" }],
    });
    expect(verdict.message).toBe("deployment orders reached healthy: 1 resource settled");
  });
});

/** The pod a message names (`pod <name>: ...`). */
function newPodName(message: string): string {
  return /pod (\S+?):/.exec(message)?.[1] ?? "(no pod named)";
}

/** Names of the pods of `app` running `image`. */
async function podsOf(namespace: string, app: string, image: string): Promise<string[]> {
  const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: `app=${app}` });
  return pods.items.filter((pod) => pod.spec?.containers[0]?.image === image).map((pod) => pod.metadata!.name!);
}

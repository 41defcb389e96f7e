/**
 * src/streams against a real kube-apiserver: informers list and receive events with objects
 * stripped as they arrive, ConfigMaps and Secrets never travel with their data, a CRD installed
 * after the hub started is resolved and observed, and watches the server ends are resumed.
 */
import { randomBytes } from "node:crypto";
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
} from "@kubernetes/client-node";
import { filter, firstValueFrom, tap, timeout, type Observable } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  InformerHub,
  kubeHttpTransport,
  type Informer,
  type KubeTransport,
  type ListPart,
  type RestartCause,
  type WatchEvent,
} from "../../src/streams/index.ts";
import { createNamespace, deleteNamespace, eventually, kubeConfig } from "./support/cluster.ts";
import { installKind, removeKind } from "./support/crds.ts";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
const customObjects = kc.makeApiClient(CustomObjectsApi);

/** The HTTP transport, keeping every raw body and watch line: what actually came over the wire. */
function recordingTransport(): { transport: KubeTransport; raw: unknown[] } {
  const http = kubeHttpTransport(kc);
  const raw: unknown[] = [];
  const record = (source: Observable<unknown>) => source.pipe(tap((value) => raw.push(value)));
  return {
    raw,
    transport: { getJson: (request) => record(http.getJson(request)), list: (request) => record(http.list(request)) as Observable<ListPart>, watch: (request) => record(http.watch(request)) },
  };
}

/** The first event matching `predicate`; the bound only ends a test that would otherwise hang. */
function nextEvent(informer: Informer, predicate: (event: WatchEvent) => boolean): Promise<WatchEvent> {
  return firstValueFrom(informer.events$.pipe(filter(predicate), timeout({ first: 60_000 })));
}

const named = (type: WatchEvent["type"], name: string) => (event: WatchEvent) => event.type === type && event.object.metadata.name === name;

async function synced(informer: Informer): Promise<void> {
  await firstValueFrom(informer.synced$.pipe(filter(Boolean), timeout({ first: 60_000 })));
}

describe("streams against a real API server", () => {
  let namespace: string;
  let hub: InformerHub;
  let raw: unknown[];
  const restarts: string[] = [];

  beforeAll(async () => {
    namespace = await createNamespace("streams");
    const recording = recordingTransport();
    raw = recording.raw;
    hub = new InformerHub({
      transport: recording.transport,
      namespaces: [namespace],
      metrics: {
        watchEvent() {},
        watchRestart: (kind, cause: RestartCause) => restarts.push(`${kind} ${cause}`),
        objects() {},
      },
    });
  });

  afterAll(async () => {
    hub?.stop();
    if (namespace) await deleteNamespace(namespace);
  });

  it("lists and watches Deployments and their Pods, stripped to what the rules read", async () => {
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "before", labels: { app: "before", "stagewatch.io/deployment": "streams" } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "before" } },
          template: { metadata: { labels: { app: "before" } }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
        },
      },
    });
    const deployments = hub.informer("apps/Deployment");
    const pods = hub.informer("core/Pod");
    await synced(deployments);
    await synced(pods);

    // Listed: the Deployment created before the informer started.
    const listed = deployments.get(namespace, "before");
    expect(listed).toMatchObject({ apiVersion: "apps/v1", kind: "Deployment", metadata: { labels: { "stagewatch.io/deployment": "streams" } } });
    expect(listed?.metadata.labels).not.toHaveProperty("app");
    expect(listed).not.toHaveProperty("metadata.managedFields");
    expect(listed).not.toHaveProperty("spec.template");

    // Watched: one created afterwards, through to its pods running under kwok.
    const added = nextEvent(deployments, named("added", "after"));
    // The controllers' own writes arrive as modifications: the ReplicaSet created, its pods counted.
    // Subscribed before the create: a subscription replays the cache, and a late one (a loaded CI
    // machine, the controllers done before it) saw the rolled-out Deployment replayed as `added`.
    const rolledOut = nextEvent(
      deployments,
      (event) => event.object.metadata.name === "after" && event.object.status?.updatedReplicas === 2 && event.object.status.replicas === 2,
    );
    await apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: "after" },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "after" } },
          template: { metadata: { labels: { app: "after" } }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
        },
      },
    });
    expect((await added).object.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    const rolled = await rolledOut;
    expect(rolled.type).toBe("modified");
    expect(rolled.object.metadata.annotations).toEqual({ "deployment.kubernetes.io/revision": "1" });
    expect(rolled.object.spec).toEqual({ replicas: 2, progressDeadlineSeconds: 600 });

    const owned = await eventually("the two pods of after", async () => {
      const found = pods.list(namespace).filter((pod) => pod.metadata.name.startsWith("after-"));
      return found.length === 2 ? found : undefined;
    });
    for (const pod of owned) {
      expect(pod.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "ReplicaSet", controller: true })]);
      expect(pod.spec?.containers).toEqual([{ name: "app" }]);
      expect(pod).not.toHaveProperty("metadata.managedFields");
      expect(pod.metadata.labels).toBeUndefined();
      for (const condition of pod.status?.conditions ?? []) expect(["PodScheduled", "Ready", "DisruptionTarget"]).toContain(condition.type);
    }
  });

  it("reads ConfigMaps and Secrets as metadata only: their data never crosses the wire", async () => {
    const secretValue = `s3cr3t-${randomBytes(6).toString("hex")}`;
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "listed" }, data: { password: secretValue } } });
    const configMaps = hub.informer("core/ConfigMap");
    const secrets = hub.informer("core/Secret");
    await synced(configMaps);
    await synced(secrets);
    expect(configMaps.get(namespace, "listed")).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "listed" } });

    const configMapAdded = nextEvent(configMaps, named("added", "watched"));
    const secretAdded = nextEvent(secrets, named("added", "watched"));
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: "watched" }, data: { password: secretValue } } });
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: "watched" }, stringData: { password: secretValue } } });
    for (const event of [await configMapAdded, await secretAdded]) {
      expect(Object.keys(event.object).sort()).toEqual(["apiVersion", "kind", "metadata"]);
    }
    const deleted = nextEvent(configMaps, named("deleted", "watched"));
    await core.deleteNamespacedConfigMap({ namespace, name: "watched" });
    expect((await deleted).object.kind).toBe("ConfigMap");

    const wire = JSON.stringify(raw);
    expect(wire).toContain("PartialObjectMetadata");
    expect(wire).not.toContain(secretValue);
    expect(wire).not.toContain(Buffer.from(secretValue).toString("base64"));
  });

  describe("a CRD installed after the hub started", () => {
    const group = `streams-${randomBytes(4).toString("hex")}.e2e.stagewatch.io`;
    const widgets = { crdName: `widgets.${group}` };
    afterAll(async () => {
      await removeKind(widgets);
    });

    it("is resolved through discovery and observed, status conditions included", async () => {
      await expect(hub.resolve(`${group}/v1`, "Widget")).rejects.toMatchObject({ name: "UnknownKindError" });
      await installKind(group, "Widget", "widgets");
      const mapping = await eventually("Widget in discovery", () => hub.resolve(`${group}/v1`, "Widget"));
      expect(mapping).toMatchObject({ resource: "widgets", namespaced: true, kindKey: `${group}/Widget` });

      const widgets = hub.informer(mapping);
      await synced(widgets);
      const added = nextEvent(widgets, named("added", "blue"));
      const created = (await customObjects.createNamespacedCustomObject({
        group,
        version: "v1",
        namespace,
        plural: "widgets",
        body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "blue" }, spec: { size: 3 } },
      })) as { metadata: { resourceVersion: string } };
      expect((await added).object).not.toHaveProperty("spec");

      const ready = nextEvent(widgets, (event) => event.object.status?.conditions?.[0]?.type === "Ready");
      await customObjects.replaceNamespacedCustomObjectStatus({
        group,
        version: "v1",
        namespace,
        plural: "widgets",
        name: "blue",
        body: {
          apiVersion: `${group}/v1`,
          kind: "Widget",
          metadata: { name: "blue", resourceVersion: created.metadata.resourceVersion },
          spec: { size: 3 },
          status: {
            observedGeneration: 1,
            conditions: [{ type: "Ready", status: "True", reason: "Reconciled", message: "3/3 parts ready" }],
            inventory: [{ kind: "Deployment", name: "blue-a" }],
          },
        },
      });
      // Nested status is emptied, not dropped: the cache still knows a status was written.
      expect((await ready).object.status).toEqual({
        observedGeneration: 1,
        conditions: [{ type: "Ready", status: "True", reason: "Reconciled", message: "3/3 parts ready" }],
        inventory: [],
      });
    });
  });
});

describe("watches the API server ends", () => {
  let namespace: string;
  let hub: InformerHub;
  const restarts: string[] = [];

  beforeAll(async () => {
    namespace = await createNamespace("streams-resume");
    hub = new InformerHub({
      transport: kubeHttpTransport(kc),
      namespaces: [namespace],
      // Each watch asks the server to end it within 1-2 s: several resumptions in one test.
      timing: { watchTimeoutSeconds: 1, minWatchMs: 0 },
      metrics: { watchEvent() {}, watchRestart: (kind, cause: RestartCause) => restarts.push(`${kind} ${cause}`), objects() {} },
    });
  });

  afterAll(async () => {
    hub?.stop();
    if (namespace) await deleteNamespace(namespace);
  });

  it("are resumed from the last resourceVersion: nothing is missed or replayed across them", async () => {
    const configMaps = hub.informer("core/ConfigMap");
    await synced(configMaps);
    const seen: string[] = [];
    configMaps.events$.subscribe((event) => {
      if (event.object.metadata.name.startsWith("tick-")) seen.push(`${event.type} ${event.object.metadata.name}`);
    });
    for (let i = 0; i < 4; i++) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: `tick-${i}` } } });
      // Let the server end the current watch before the next change.
      await eventually(`watch restarted after tick-${i}`, async () => (restarts.length > i ? true : undefined), { timeoutMs: 30_000 });
    }
    await eventually("all ticks seen", async () => (seen.length >= 4 ? true : undefined));
    expect(seen).toEqual(["added tick-0", "added tick-1", "added tick-2", "added tick-3"]);
    expect(restarts.every((restart) => restart === "core/ConfigMap closed")).toBe(true);
  });
});

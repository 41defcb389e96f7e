// The informer's list/watch behaviour against a scripted API server, on virtual time. Each test
// drives the HTTP layer the way kube-apiserver does (pages, bookmarks, 410s, silent sockets) and
// asserts what consumers see: events, the cache, synced, and the restarts counted.
import { describe, expect, it } from "vitest";
import type { InformerProblem } from "./accessProblem.js";
import { InformerHub, type InformerHubOptions } from "./informerHub.js";
import type { RestartCause, StreamMetrics } from "./instrumentation.js";
import { metadataListAccept, metadataWatchAccept } from "./reflector.js";
import { UnknownKindError } from "./restMapper.js";
import { ScriptedTransport, VirtualClock, listBody, type ScriptedWatch } from "./testing/index.js";
import { describeEvent, fixture, fixtureObject, recordEvents, serveList } from "./testing/scriptedObjects.js";
import { KubeRequestError, statusError } from "./transport.js";

const runningPod = fixture("pod-running.json");
const deploymentJson = fixture("deployment.json");

const pod = (name: string, resourceVersion: string, uid?: string) => fixtureObject(runningPod, "payments", name, resourceVersion, uid);

const podsPath = "/api/v1/pods";

function recordingMetrics() {
  const recorded = { events: [] as string[], restarts: [] as string[], objects: new Map<string, number>() };
  const metrics: StreamMetrics = {
    watchEvent: (kind, type) => recorded.events.push(`${kind} ${type}`),
    watchRestart: (kind, cause: RestartCause) => recorded.restarts.push(`${kind} ${cause}`),
    objects: (kind, count) => recorded.objects.set(kind, count),
  };
  return { metrics, recorded };
}

function setup(options: Partial<InformerHubOptions> = {}) {
  const clock = new VirtualClock();
  const transport = new ScriptedTransport();
  const { metrics, recorded } = recordingMetrics();
  // random() = 0: no jitter, and every watch asks for exactly watchTimeoutSeconds.
  const hub = new InformerHub({ transport, scheduler: clock.scheduler, random: () => 0, metrics, ...options });
  return { clock, transport, hub, recorded };
}

describe("informer: list, then watch", () => {
  it("lists in pages, then watches from the list's resourceVersion with bookmarks and a server-side timeout", () => {
    const { transport, hub, recorded } = setup();
    transport.onGet(podsPath, (request) =>
      request.query?.continue === undefined
        ? listBody([pod("api-0", "90"), pod("api-1", "95")], "100", "page-2")
        : listBody([pod("api-2", "99")], "100"),
    );
    const informer = hub.informer("core/Pod");

    expect(transport.gets(podsPath).map((request) => request.query)).toEqual([
      { limit: 500, continue: undefined },
      { limit: 500, continue: "page-2" },
    ]);
    expect(informer.hasSynced()).toBe(true);
    const watch = transport.currentWatch(podsPath);
    expect(watch.request.query).toEqual({ watch: true, resourceVersion: "100", allowWatchBookmarks: true, timeoutSeconds: 300 });
    expect(watch.request.accept).toBeUndefined();

    // A subscriber arriving after the list gets the cache replayed, then live changes.
    const seen = recordEvents(informer.events$);
    watch.send("MODIFIED", pod("api-0", "101"));
    watch.send("DELETED", pod("api-1", "102"));
    watch.send("ADDED", pod("api-3", "103"));
    expect(seen).toEqual(["added api-0@90", "added api-1@95", "added api-2@99", "modified api-0@101", "deleted api-1@102", "added api-3@103"]);
    expect(informer.list().map((cached) => cached.metadata.name)).toEqual(["api-0", "api-2", "api-3"]);
    expect(informer.get("payments", "api-0")?.metadata.resourceVersion).toBe("101");
    expect(informer.get("payments", "api-0")).not.toHaveProperty("metadata.managedFields");
    expect(recorded.events).toEqual(["core/Pod modified", "core/Pod deleted", "core/Pod added"]);
    expect(recorded.objects.get("core/Pod")).toBe(3);
  });

  it("retries a failed list after the backoff; synced turns true only after the list's events", () => {
    const { clock, transport, hub, recorded } = setup();
    const server = serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    server.failWith = new KubeRequestError("GET /api/v1/pods: 500 InternalError", { status: 500 });
    const informer = hub.informer("core/Pod");
    const log: string[] = [];
    informer.synced$.subscribe((synced) => log.push(`synced ${synced}`));
    informer.events$.subscribe((event) => log.push(describeEvent(event)));
    server.failWith = undefined;

    clock.advance(799);
    expect(transport.gets(podsPath)).toHaveLength(1);
    clock.advance(1);
    expect(log).toEqual(["synced false", "added api-0@90", "synced true"]);
    expect(recorded.restarts).toEqual(["core/Pod error"]);
  });
});

describe("informer: staying current", () => {
  it.each([
    { name: "an ERROR event with code 410", expire: (watch: ScriptedWatch) => watch.status(410, "Expired", "too old resource version: 100 (250)") },
    {
      name: "HTTP 410 on the watch request",
      expire: (watch: ScriptedWatch) => watch.fail(new KubeRequestError("GET /api/v1/pods: 410 Gone", { status: 410, reason: "Gone" })),
    },
  ])("relists after $name: vanished objects deleted, new ones added, changed ones modified", ({ expire }) => {
    const { clock, transport, hub, recorded } = setup();
    const server = serveList(transport, podsPath, {
      items: [pod("api-0", "90"), pod("api-1", "95"), pod("api-2", "99")],
      resourceVersion: "100",
    });
    const informer = hub.informer("core/Pod");
    const seen = recordEvents(informer.events$);
    seen.length = 0;

    clock.advance(60_000);
    Object.assign(server, { items: [pod("api-0", "90"), pod("api-1", "200"), pod("api-4", "210")], resourceVersion: "250" });
    expire(transport.currentWatch(podsPath));
    clock.advance(0);

    expect(transport.gets(podsPath)).toHaveLength(2);
    expect(transport.gets(podsPath)[1]?.query?.resourceVersion).toBeUndefined();
    expect(seen).toEqual(["modified api-1@200", "added api-4@210", "deleted api-2@99"]);
    expect(transport.currentWatch(podsPath).request.query?.resourceVersion).toBe("250");
    expect(recorded.restarts).toEqual(["core/Pod gone"]);
  });

  it("restarts a failed watch from the last resourceVersion seen, after a growing backoff forgiven after a healthy stretch", () => {
    const { clock, transport, hub, recorded } = setup();
    serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    hub.informer("core/Pod");
    transport.currentWatch(podsPath).send("MODIFIED", pod("api-0", "101"));

    transport.currentWatch(podsPath).fail();
    clock.advance(799);
    expect(transport.openWatches(podsPath)).toHaveLength(0);
    clock.advance(1);
    expect(transport.currentWatch(podsPath).request.query?.resourceVersion).toBe("101");

    transport.currentWatch(podsPath).fail();
    clock.advance(1599);
    expect(transport.openWatches(podsPath)).toHaveLength(0);
    clock.advance(1);
    expect(transport.openWatches(podsPath)).toHaveLength(1);

    clock.advance(120_000);
    transport.currentWatch(podsPath).fail();
    clock.advance(800);
    expect(transport.openWatches(podsPath)).toHaveLength(1);
    // Resumed each time: no relist after an error.
    expect(transport.gets(podsPath)).toHaveLength(1);
    expect(recorded.restarts).toEqual(["core/Pod error", "core/Pod error", "core/Pod error"]);
  });

  it("the watchdog aborts a watch that delivered nothing for too long and starts another", () => {
    const { clock, transport, hub, recorded } = setup();
    serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    hub.informer("core/Pod");
    const silent = transport.currentWatch(podsPath);

    clock.advance(299_999);
    expect(silent.open).toBe(true);
    clock.advance(1);
    expect(silent.open).toBe(false);
    expect(recorded.restarts).toEqual(["core/Pod watchdog"]);
    const next = transport.currentWatch(podsPath);
    expect(next).not.toBe(silent);
    expect(next.request.query?.resourceVersion).toBe("100");
  });

  it("a bookmark keeps the watchdog quiet and moves the point the next watch resumes from", () => {
    const { clock, transport, hub, recorded } = setup();
    serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    hub.informer("core/Pod");
    const watch = transport.currentWatch(podsPath);

    clock.advance(200_000);
    watch.bookmark("150");
    clock.advance(299_999);
    expect(watch.open).toBe(true);
    expect(recorded.restarts).toEqual([]);
    clock.advance(1);
    expect(watch.open).toBe(false);
    expect(transport.currentWatch(podsPath).request.query?.resourceVersion).toBe("150");
    expect(recorded.events).toEqual(["core/Pod bookmark"]);
  });

  it("resumes at once a watch the server ended after working, but backs off when it ends at once", () => {
    const { clock, transport, hub, recorded } = setup();
    serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    hub.informer("core/Pod");

    clock.advance(60_000);
    transport.currentWatch(podsPath).end();
    clock.advance(0);
    const resumed = transport.currentWatch(podsPath);
    expect(resumed.request.query?.resourceVersion).toBe("100");

    resumed.end();
    clock.advance(799);
    expect(transport.openWatches(podsPath)).toHaveLength(0);
    clock.advance(1);
    expect(transport.openWatches(podsPath)).toHaveLength(1);
    expect(recorded.restarts).toEqual(["core/Pod closed", "core/Pod closed"]);
  });

  it("treats a malformed watch line as a failure of the watch", () => {
    const { clock, transport, hub, recorded } = setup();
    serveList(transport, podsPath, { items: [], resourceVersion: "100" });
    hub.informer("core/Pod");
    const watch = transport.currentWatch(podsPath);
    watch.line({ kind: "Pod" });
    expect(watch.open).toBe(false);
    clock.advance(800);
    expect(transport.openWatches(podsPath)).toHaveLength(1);
    expect(recorded.restarts).toEqual(["core/Pod error"]);
  });
});

describe("informer: metadata-only kinds", () => {
  const secretMetadataList = fixture("secret-metadata-list.json");

  it.each([
    { kind: "Secret", path: "/api/v1/secrets", body: { type: "Opaque", data: { url: "cG9zdGdyZXM6Ly91c2VyOmh1bnRlcjJAZGIvcGF5bWVudHM=" } } },
    { kind: "ConfigMap", path: "/api/v1/configmaps", body: { data: { "settings.yaml": "password: cG9zdGdyZXM6Ly91c2VyOmh1bnRlcjJAZGIvcGF5bWVudHM=" } } },
  ])("$kind is asked for as PartialObjectMetadata and never keeps data", ({ kind, path, body }) => {
    const { transport, hub } = setup();
    transport.onGet(path, () => secretMetadataList);
    const informer = hub.informer(`core/${kind}`);

    expect(transport.gets(path)[0]?.accept).toBe(metadataListAccept);
    const watch = transport.currentWatch(path);
    expect(watch.request.accept).toBe(metadataWatchAccept);
    // Even a server that ignored the Accept header cannot put data in the cache.
    watch.send("ADDED", { apiVersion: "v1", kind, metadata: { name: "leaky", namespace: "payments", uid: "uid-leaky", resourceVersion: "300" }, ...body });

    const cached = informer.list();
    expect(cached.map((object) => [object.apiVersion, object.kind, object.metadata.name])).toEqual([
      ["v1", kind, "payments-db"],
      ["v1", kind, "leaky"],
    ]);
    expect(JSON.stringify(cached)).not.toContain("cG9zdGdyZXM6Ly91c2VyOmh1bnRlcjJAZGIvcGF5bWVudHM");
    expect(cached.every((object) => Object.keys(object).sort().join() === "apiVersion,kind,metadata")).toBe(true);
  });

  it("syncs on an empty metadata list, which the API server writes with items: null", () => {
    const { transport, hub } = setup();
    transport.onGet("/api/v1/secrets", () => ({
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: { resourceVersion: "696" },
      items: null,
    }));
    const informer = hub.informer("core/Secret");
    expect(informer.hasSynced()).toBe(true);
    expect(transport.currentWatch("/api/v1/secrets").request.query?.resourceVersion).toBe("696");
  });

  it("workload kinds are asked for in full", () => {
    const { transport, hub } = setup();
    serveList(transport, "/apis/apps/v1/deployments", { items: [deploymentJson], resourceVersion: "100" });
    hub.informer("apps/Deployment");
    expect(transport.gets("/apis/apps/v1/deployments")[0]?.accept).toBeUndefined();
    expect(transport.currentWatch("/apis/apps/v1/deployments").request.accept).toBeUndefined();
  });
});

describe("informer: a namespace list", () => {
  const deployment = (namespace: string, name: string, resourceVersion: string) => fixtureObject(deploymentJson, namespace, name, resourceVersion);
  const paymentsPath = "/apis/apps/v1/namespaces/payments/deployments";
  const shopPath = "/apis/apps/v1/namespaces/shop/deployments";

  it("watches each namespace on its own, merges them into one cache, and syncs when all have listed", () => {
    const { clock, transport, hub } = setup({ namespaces: ["payments", "shop"] });
    const payments = serveList(transport, paymentsPath, { items: [deployment("payments", "api", "90")], resourceVersion: "100" });
    const shop = serveList(transport, shopPath, { items: [deployment("shop", "web", "190")], resourceVersion: "200" });
    shop.failWith = new KubeRequestError("GET: 503 ServiceUnavailable", { status: 503 });

    const informer = hub.informer("apps/Deployment");
    expect(informer.hasSynced()).toBe(false);
    shop.failWith = undefined;
    clock.advance(800);
    expect(informer.hasSynced()).toBe(true);
    expect(transport.gets("/apis/apps/v1/deployments")).toEqual([]);
    expect(informer.list().map((cached) => `${cached.metadata.namespace}/${cached.metadata.name}`)).toEqual(["payments/api", "shop/web"]);
    expect(informer.list("shop").map((cached) => cached.metadata.name)).toEqual(["web"]);

    // A relist of one namespace judges only that namespace.
    const seen = recordEvents(informer.events$);
    seen.length = 0;
    const shopWatch = transport.currentWatch(shopPath);
    clock.advance(60_000);
    Object.assign(payments, { items: [], resourceVersion: "300" });
    transport.currentWatch(paymentsPath).status(410, "Expired", "too old resource version: 100 (300)");
    clock.advance(0);
    expect(seen).toEqual(["deleted api@90"]);
    expect(informer.get("shop", "web")).toBeDefined();
    expect(shopWatch.open).toBe(true);
    expect(transport.currentWatch(paymentsPath).request.query?.resourceVersion).toBe("300");
  });

  it("watches cluster-scoped kinds cluster-wide", () => {
    const { transport, hub } = setup({ namespaces: ["payments", "shop"] });
    serveList(transport, "/api/v1/namespaces", {
      items: [{ metadata: { name: "payments", uid: "ns-1", resourceVersion: "5" }, status: { phase: "Active" } }],
      resourceVersion: "10",
    });
    const informer = hub.informer("core/Namespace");
    expect(transport.requests.map((request) => request.path)).toEqual(["/api/v1/namespaces", "/api/v1/namespaces"]);
    expect(informer.get(undefined, "payments")?.status).toEqual({ phase: "Active" });
  });
});

describe("InformerHub", () => {
  it("starts one informer per kind, lazily, whatever form the kind is named in", async () => {
    const { transport, hub } = setup();
    serveList(transport, podsPath, { items: [], resourceVersion: "1" });
    expect(transport.requests).toEqual([]);
    const byKey = hub.informer("core/Pod");
    const byMapping = hub.informer(await hub.resolve("v1", "Pod"));
    expect(byMapping).toBe(byKey);
    expect(await hub.informerFor("v1", "Pod")).toBe(byKey);
    expect(transport.gets(podsPath)).toHaveLength(1);
    expect(transport.openWatches()).toHaveLength(1);
  });

  it("starts informers for kinds found through discovery, and refuses kinds it cannot map", async () => {
    const { transport, hub } = setup();
    expect(() => hub.informer("example.com/Widget")).toThrow(UnknownKindError);
    transport.onGet("/apis/example.com/v1", () => ({
      kind: "APIResourceList",
      groupVersion: "example.com/v1",
      resources: [{ name: "widgets", singularName: "widget", namespaced: true, kind: "Widget", verbs: ["get", "list", "watch"] }],
    }));
    serveList(transport, "/apis/example.com/v1/widgets", { items: [fixture("widget.json")], resourceVersion: "300" });
    const widgets = await hub.informerFor("example.com/v1", "Widget");
    expect(widgets.get("shop", "blue")?.status?.conditions?.[0]?.type).toBe("Ready");
    expect(hub.informer("example.com/Widget")).toBe(widgets);
    await expect(hub.informerFor("example.com/v1", "Gizmo")).rejects.toBeInstanceOf(UnknownKindError);
  });

  it("reports synced only when every informer started has synced", () => {
    const { clock, transport, hub } = setup();
    serveList(transport, podsPath, { items: [], resourceVersion: "1" });
    const replicaSets = serveList(transport, "/apis/apps/v1/replicasets", { items: [], resourceVersion: "1" });
    replicaSets.failWith = new KubeRequestError("GET: 500", { status: 500 });
    hub.informer("core/Pod");
    hub.informer("apps/ReplicaSet");
    expect(hub.hasSynced()).toBe(false);
    replicaSets.failWith = undefined;
    clock.advance(800);
    expect(hub.hasSynced()).toBe(true);
  });

  it("stop ends the watches and completes the streams; nothing restarts afterwards", () => {
    const { clock, transport, hub } = setup();
    serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    const informer = hub.informer("core/Pod");
    let completed = false;
    informer.events$.subscribe({ complete: () => (completed = true) });
    const watch = transport.currentWatch(podsPath);

    hub.stop();
    expect(watch.open).toBe(false);
    expect(completed).toBe(true);
    const requests = transport.requests.length;
    clock.advance(3_600_000);
    expect(transport.requests).toHaveLength(requests);
    // A later need starts a fresh informer.
    expect(hub.informer("core/Pod")).not.toBe(informer);
  });

  it("a handler may stop the informer while the list's events are delivered: no watch follows", () => {
    const { clock, transport, hub } = setup();
    const server = serveList(transport, podsPath, { items: [pod("api-0", "90"), pod("api-1", "91")], resourceVersion: "100" });
    server.failWith = new KubeRequestError("GET: 500", { status: 500 });
    const informer = hub.informer("core/Pod");
    informer.events$.subscribe(() => informer.stop());
    server.failWith = undefined;
    clock.advance(800);
    expect(transport.watches()).toHaveLength(0);
    clock.advance(3_600_000);
    expect(transport.gets(podsPath)).toHaveLength(2);
  });
});

describe("informer: access refused", () => {
  const secretsPath = "/api/v1/secrets";
  const serviceAccount = "system:serviceaccount:stagewatch:stagewatch";
  /** The Status body kube-apiserver answers a request RBAC refuses. */
  const forbidden = (path: string, verb: string, resource: string, scope: string) =>
    statusError(
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `${resource} is forbidden: User "${serviceAccount}" cannot ${verb} resource "${resource}" in API group "" ${scope}`,
        reason: "Forbidden",
        details: { kind: resource },
        code: 403,
      },
      `GET ${path}`,
      403,
    );
  const clusterScope = "at the cluster scope";
  const secretsForbidden = forbidden(secretsPath, "list", "secrets", clusterScope);
  const emptySecrets = { kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", metadata: { resourceVersion: "700" }, items: null };

  function recordProblems(informer: { problems$: { subscribe(next: (problems: readonly InformerProblem[]) => void): unknown } }) {
    const seen: (readonly InformerProblem[])[] = [];
    informer.problems$.subscribe((problems) => seen.push(problems));
    return seen;
  }

  it("a list refused by RBAC is reported once, retried with backoff, and cleared by the list that succeeds", () => {
    const { clock, transport, hub, recorded } = setup();
    const server = { refuse: true };
    transport.onGet(secretsPath, () => {
      if (server.refuse) throw secretsForbidden;
      return emptySecrets;
    });
    const informer = hub.informer("core/Secret");
    const seen = recordProblems(informer);
    expect(seen).toEqual([
      [
        {
          reason: "Forbidden",
          verb: "list",
          message: `secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" at the cluster scope`,
        },
      ],
    ]);
    expect(informer.hasSynced()).toBe(false);

    // Still refused on the retry: nothing new to say.
    clock.advance(800);
    expect(transport.gets(secretsPath)).toHaveLength(2);
    expect(seen).toHaveLength(1);

    // Someone adds the verb to the ClusterRole; the next retry (1.6 s later) lists.
    server.refuse = false;
    clock.advance(1599);
    expect(informer.hasSynced()).toBe(false);
    clock.advance(1);
    expect(seen.at(-1)).toEqual([]);
    expect(seen).toHaveLength(2);
    expect(informer.hasSynced()).toBe(true);
    expect(transport.currentWatch(secretsPath).request.query?.resourceVersion).toBe("700");
    expect(recorded.restarts).toEqual(["core/Secret error", "core/Secret error"]);
  });

  it.each([
    {
      name: "the watch request answered 403",
      refuse: (watch: ScriptedWatch) => watch.fail(forbidden(podsPath, "watch", "pods", clusterScope)),
    },
    {
      name: "a watch ERROR event with code 403",
      refuse: (watch: ScriptedWatch) =>
        watch.status(403, "Forbidden", `pods is forbidden: User "${serviceAccount}" cannot watch resource "pods" in API group "" at the cluster scope`),
    },
  ])("$name is a problem of the watch, and only a relist clears it", ({ refuse }) => {
    const { clock, transport, hub, recorded } = setup();
    serveList(transport, podsPath, { items: [pod("api-0", "90")], resourceVersion: "100" });
    const informer = hub.informer("core/Pod");
    const seen = recordProblems(informer);

    refuse(transport.currentWatch(podsPath));
    expect(seen.at(-1)).toEqual([
      {
        reason: "Forbidden",
        verb: "watch",
        message: `pods is forbidden: User "${serviceAccount}" cannot watch resource "pods" in API group "" at the cluster scope`,
      },
    ]);
    clock.advance(800);
    // Not a resumed watch: a watch that opens proves nothing until it delivers, a list does.
    expect(transport.gets(podsPath)).toHaveLength(2);
    expect(seen.at(-1)).toEqual([]);
    expect(transport.currentWatch(podsPath).request.query?.resourceVersion).toBe("100");
    expect(recorded.restarts).toEqual(["core/Pod error"]);
  });

  it("an expired token (401) is a problem too; other failures are not", () => {
    const { clock, transport, hub } = setup();
    const server = serveList(transport, podsPath, { items: [], resourceVersion: "100" });
    server.failWith = statusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 }, `GET ${podsPath}`, 401);
    const informer = hub.informer("core/Pod");
    const seen = recordProblems(informer);
    expect(seen).toEqual([[{ reason: "Unauthorized", verb: "list", message: "Unauthorized" }]]);

    server.failWith = statusError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the server is currently unable to handle the request", reason: "ServiceUnavailable", code: 503 }, `GET ${podsPath}`, 503);
    clock.advance(800);
    // An outage says nothing about access: the last refusal stands until a list succeeds.
    expect(seen).toHaveLength(1);
    server.failWith = undefined;
    clock.advance(1600);
    expect(seen).toEqual([[{ reason: "Unauthorized", verb: "list", message: "Unauthorized" }], []]);
  });

  it("with a namespace list, each namespace's refusal is its own", () => {
    const { clock, transport, hub } = setup({ namespaces: ["payments", "shop"] });
    const paymentsPath = "/api/v1/namespaces/payments/secrets";
    const shopPath = "/api/v1/namespaces/shop/secrets";
    transport.onGet(paymentsPath, () => emptySecrets);
    const shop = { refuse: true };
    transport.onGet(shopPath, () => {
      if (shop.refuse) throw forbidden(shopPath, "list", "secrets", 'in the namespace "shop"');
      return emptySecrets;
    });
    const informer = hub.informer("core/Secret");
    const seen = recordProblems(informer);
    expect(seen).toEqual([
      [
        {
          reason: "Forbidden",
          verb: "list",
          namespace: "shop",
          message: `secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" in the namespace "shop"`,
        },
      ],
    ]);
    expect(transport.openWatches(paymentsPath)).toHaveLength(1);

    shop.refuse = false;
    clock.advance(800);
    expect(seen.at(-1)).toEqual([]);
    expect(informer.hasSynced()).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { DiscoveryError, RestMapper, UnknownKindError, collectionPath } from "./restMapper.js";
import { KubeRequestError } from "./transport.js";
import { ScriptedTransport } from "./testing/index.js";

// Trimmed from what kube-apiserver answers on /apis/networking.k8s.io/v1.
const networkingV1 = {
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: "networking.k8s.io/v1",
  resources: [
    { name: "ingressclasses", singularName: "ingressclass", namespaced: false, kind: "IngressClass", verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
    { name: "ingresses", singularName: "ingress", namespaced: true, kind: "Ingress", verbs: ["create", "delete", "get", "list", "patch", "update", "watch"], shortNames: ["ing"] },
    { name: "ingresses/status", singularName: "", namespaced: true, kind: "Ingress", verbs: ["get", "patch", "update"] },
    { name: "networkpolicies", singularName: "networkpolicy", namespaced: true, kind: "NetworkPolicy", verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
  ],
};

const widgetsV1 = (kinds: { name: string; kind: string }[]) => ({
  kind: "APIResourceList",
  apiVersion: "v1",
  groupVersion: "example.com/v1",
  resources: kinds.map(({ name, kind }) => ({ name, singularName: "", namespaced: true, kind, verbs: ["get", "list", "watch"] })),
});

describe("RestMapper", () => {
  it("maps a kind through its group version's discovery document, skipping subresources", async () => {
    const transport = new ScriptedTransport().onGet("/apis/networking.k8s.io/v1", () => networkingV1);
    const mapper = new RestMapper(transport);
    const ingress = await mapper.resolve("networking.k8s.io/v1", "Ingress");
    expect(ingress).toEqual({
      apiVersion: "networking.k8s.io/v1",
      group: "networking.k8s.io",
      version: "v1",
      kind: "Ingress",
      resource: "ingresses",
      namespaced: true,
      kindKey: "networking.k8s.io/Ingress",
    });
    expect(collectionPath(ingress, "shop")).toBe("/apis/networking.k8s.io/v1/namespaces/shop/ingresses");
    // The whole group version was learnt at once: its other kinds need no second request.
    expect((await mapper.resolve("networking.k8s.io/v1", "IngressClass")).namespaced).toBe(false);
    expect(transport.gets()).toHaveLength(1);
    expect(mapper.cached("networking.k8s.io/Ingress")).toEqual(ingress);
  });

  it("knows built-in workload kinds without asking", async () => {
    const transport = new ScriptedTransport();
    const mapper = new RestMapper(transport);
    const pod = await mapper.resolve("v1", "Pod");
    expect(collectionPath(pod)).toBe("/api/v1/pods");
    expect(pod.kindKey).toBe("core/Pod");
    expect(collectionPath(await mapper.resolve("apps/v1", "ReplicaSet"), "shop")).toBe("/apis/apps/v1/namespaces/shop/replicasets");
    expect(transport.requests).toEqual([]);
  });

  it("finds a CRD installed after start-up by asking discovery again on a miss", async () => {
    let kinds = [{ name: "gadgets", kind: "Gadget" }];
    const transport = new ScriptedTransport().onGet("/apis/example.com/v1", () => widgetsV1(kinds));
    const mapper = new RestMapper(transport);
    await expect(mapper.resolve("example.com/v1", "Widget")).rejects.toBeInstanceOf(UnknownKindError);
    kinds = [...kinds, { name: "widgets", kind: "Widget" }];
    expect((await mapper.resolve("example.com/v1", "Widget")).resource).toBe("widgets");
    expect(transport.gets("/apis/example.com/v1")).toHaveLength(2);
  });

  it("reports a group version the server does not serve as an unknown kind", async () => {
    const mapper = new RestMapper(new ScriptedTransport());
    const error = await mapper.resolve("example.com/v9", "Widget").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnknownKindError);
    expect(error).toMatchObject({ kind: "Widget", apiVersion: "example.com/v9" });
  });

  it("does not offer a kind that cannot be watched", async () => {
    const transport = new ScriptedTransport().onGet("/api/v1", () => ({
      kind: "APIResourceList",
      groupVersion: "v1",
      resources: [{ name: "bindings", namespaced: true, kind: "Binding", verbs: ["create"] }],
    }));
    await expect(new RestMapper(transport).resolve("v1", "Binding")).rejects.toBeInstanceOf(UnknownKindError);
  });

  it("tells a failed discovery apart from an unknown kind", async () => {
    const transport = new ScriptedTransport().onGet("/apis/example.com/v1", () => {
      throw new KubeRequestError("GET /apis/example.com/v1: 503 ServiceUnavailable", { status: 503 });
    });
    const error = await new RestMapper(transport).resolve("example.com/v1", "Widget").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DiscoveryError);
    expect((error as DiscoveryError).cause).toBeInstanceOf(KubeRequestError);
  });

  it("shares one discovery request among concurrent misses", async () => {
    const transport = new ScriptedTransport().onGet("/apis/example.com/v1", () => widgetsV1([{ name: "widgets", kind: "Widget" }]));
    const mapper = new RestMapper(transport);
    const [a, b] = await Promise.all([mapper.resolve("example.com/v1", "Widget"), mapper.resolve("example.com/v1", "Widget")]);
    expect(a).toBe(b);
    expect(transport.gets()).toHaveLength(1);
  });
});

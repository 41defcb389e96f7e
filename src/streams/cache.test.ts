import { describe, expect, it } from "vitest";
import type { KubeObject } from "../kube/objects.js";
import { ObjectCache } from "./cache.js";

const pod = (namespace: string, name: string, uid: string, resourceVersion: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace, uid, resourceVersion },
});

const summary = (events: readonly { type: string; object: KubeObject }[]) =>
  events.map((event) => `${event.type} ${event.object.metadata.namespace}/${event.object.metadata.name}@${event.object.metadata.resourceVersion}`);

/** A whole replace, its steps run one after the other: every event, in order. */
const replace = (cache: ObjectCache, objects: KubeObject[], namespace?: string) => [...cache.replaceSteps(objects, namespace)].flatMap(summary);

describe("ObjectCache", () => {
  it("lists 200,000 objects of one namespace (spreading them into push overflowed the stack past about 125,000)", () => {
    const cache = new ObjectCache();
    for (let i = 0; i < 200_000; i++) cache.upsert(pod("big", `pod-${i}`, `uid-${i}`, "1"));
    expect(cache.list()).toHaveLength(200_000);
    expect(cache.list("big")).toHaveLength(200_000);
  });

  it("reports a name re-used by a new UID as a deletion and an addition, not an update", () => {
    const cache = new ObjectCache();
    cache.upsert(pod("shop", "web-0", "uid-1", "10"));
    const events = cache.upsert(pod("shop", "web-0", "uid-2", "20"));
    expect(events.map((event) => [event.type, event.object.metadata.uid])).toEqual([
      ["deleted", "uid-1"],
      ["added", "uid-2"],
    ]);
    expect(cache.size).toBe(1);
  });

  it("replace within one namespace leaves other namespaces alone and skips unchanged objects", () => {
    const cache = new ObjectCache();
    replace(cache, [pod("shop", "web-0", "u1", "10"), pod("shop", "web-1", "u2", "11")], "shop");
    replace(cache, [pod("payments", "api-0", "u3", "12")], "payments");
    const events = replace(cache, [pod("shop", "web-0", "u1", "10"), pod("shop", "web-2", "u4", "30")], "shop");
    expect(events).toEqual(["added shop/web-2@30", "deleted shop/web-1@11"]);
    expect(cache.list("payments").map((object) => object.metadata.name)).toEqual(["api-0"]);
    expect(cache.size).toBe(3);
  });

  it("replace of the whole cache removes what no namespace listed", () => {
    const cache = new ObjectCache();
    cache.upsert(pod("shop", "web-0", "u1", "10"));
    cache.upsert(pod("payments", "api-0", "u2", "11"));
    const events = replace(cache, [pod("shop", "web-0", "u1", "15")]);
    expect(events).toEqual(["modified shop/web-0@15", "deleted payments/api-0@11"]);
  });

  it("replace steps: one per listed object in list order (empty when unchanged), then one per cached object looked at for deletion, each applied as it is taken", () => {
    const cache = new ObjectCache();
    replace(cache, [pod("shop", "web-0", "u1", "10"), pod("shop", "web-1", "u2", "11"), pod("shop", "web-2", "u3", "12")], "shop");
    const steps = cache.replaceSteps([pod("shop", "web-2", "u3", "12"), pod("shop", "web-0", "u9", "20"), pod("shop", "web-3", "u4", "21")], "shop");
    expect(summary(steps.next().value ?? [])).toEqual([]);
    expect(summary(steps.next().value ?? [])).toEqual(["deleted shop/web-0@10", "added shop/web-0@20"]);
    // Applied as taken: the next object is not in yet, the vanished one still is.
    expect(cache.get("shop", "web-0")?.metadata.uid).toBe("u9");
    expect(cache.get("shop", "web-3")).toBeUndefined();
    expect(cache.get("shop", "web-1")).toBeDefined();
    // Then the cache in its order: web-0 and web-2 kept (a step each, empty), web-1 gone, web-3 kept.
    expect([...steps].map(summary)).toEqual([["added shop/web-3@21"], [], ["deleted shop/web-1@11"], [], []]);
    expect(cache.list("shop").map((object) => object.metadata.name)).toEqual(["web-0", "web-2", "web-3"]);
  });

  it("emits nothing for the deletion of an object it never held", () => {
    const cache = new ObjectCache();
    expect(cache.remove(pod("shop", "web-0", "u1", "10"))).toEqual([]);
    expect(cache.size).toBe(0);
  });

  it("finds cluster-scoped objects without a namespace", () => {
    const cache = new ObjectCache();
    const namespace: KubeObject = { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop", uid: "n1" } };
    cache.upsert(namespace);
    expect(cache.get(undefined, "shop")).toBe(namespace);
    expect(cache.list()).toEqual([namespace]);
  });
});

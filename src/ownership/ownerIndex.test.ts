import { describe, expect, it } from "vitest";
import type { Pod, ReplicaSet } from "../kube/objects.js";
import { pod } from "../../test/fixtures/kube/pods.js";
import { deployment, replicaSet } from "../../test/fixtures/kube/workloads.js";
import { uidOf } from "../../test/fixtures/kube/meta.js";
import { OwnerIndex, controllerOf } from "./index.js";

const api = deployment({ name: "api" });
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
const previous = replicaSet(api, { name: "api-5d4b8c7f6", revision: "3", replicas: 1 });

const names = (pods: readonly Pod[]) => pods.map((p) => p.metadata.name).toSorted();

describe("OwnerIndex", () => {
  it("files children under their controller's UID", () => {
    const index = new OwnerIndex<Pod>();
    index.upsert(pod({ name: "api-7f9c6d8b5-x2k8p", owner: current }));
    index.upsert(pod({ name: "api-7f9c6d8b5-w8tqz", owner: current }));
    index.upsert(pod({ name: "api-5d4b8c7f6-m4n7q", owner: previous }));
    index.upsert(pod({ name: "debug" }));
    expect(names(index.childrenOf(current.metadata.uid))).toEqual(["api-7f9c6d8b5-w8tqz", "api-7f9c6d8b5-x2k8p"]);
    expect(names(index.childrenOf(previous.metadata.uid))).toEqual(["api-5d4b8c7f6-m4n7q"]);
    expect(index.size).toBe(4);
  });

  it("re-files an object whose controller changed on update (orphaned and adopted)", () => {
    const index = new OwnerIndex<Pod>();
    const adopted = pod({ name: "api-7f9c6d8b5-x2k8p", owner: previous });
    index.upsert(adopted);
    index.upsert({ ...adopted, metadata: { ...adopted.metadata, ownerReferences: pod({ name: "x", owner: current }).metadata.ownerReferences } });
    expect(index.childrenOf(previous.metadata.uid)).toEqual([]);
    expect(names(index.childrenOf(current.metadata.uid))).toEqual(["api-7f9c6d8b5-x2k8p"]);
  });

  it("deletes by key using the stored copy, even when the notification carries a stale state", () => {
    const index = new OwnerIndex<Pod>();
    const stored = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current });
    index.upsert(stored);
    // A DeletedFinalStateUnknown-style tombstone: same key, no ownerReferences.
    const tombstone = { ...stored, metadata: { ...stored.metadata, ownerReferences: [] } };
    expect(index.delete(tombstone)).toBe(stored);
    expect(index.childrenOf(current.metadata.uid)).toEqual([]);
    expect(index.getByUid(stored.metadata.uid)).toBeUndefined();
    expect(index.delete(tombstone)).toBeUndefined();
  });

  it("routes a pod up to its Deployment through the ReplicaSet's UID", () => {
    const replicaSets = new OwnerIndex<ReplicaSet>();
    replicaSets.upsert(current);
    replicaSets.upsert(previous);
    const event = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current });
    const owner = replicaSets.getByUid(controllerOf(event)?.uid ?? "");
    expect(owner?.metadata.name).toBe("api-7f9c6d8b5");
    expect(owner && controllerOf(owner)?.uid).toBe(api.metadata.uid);
  });

  it("follows a pod re-created under the same name with a new UID", () => {
    const index = new OwnerIndex<Pod>();
    const first = pod({ name: "ledger-0", owner: current });
    const second = { ...first, metadata: { ...first.metadata, uid: uidOf("pod/ledger-0/second") } };
    index.upsert(first);
    index.upsert(second);
    expect(index.getByUid(first.metadata.uid)).toBeUndefined();
    expect(index.getByUid(second.metadata.uid)).toBe(second);
    expect(index.get("payments/ledger-0")).toBe(second);
    expect(index.childrenOf(current.metadata.uid)).toEqual([second]);
  });
});

import { describe, expect, it } from "vitest";
import { pod, running } from "../../test/fixtures/kube/pods.js";
import { deployment, job, replicaSet, statefulSet } from "../../test/fixtures/kube/workloads.js";
import { controllerRef, uidOf } from "../../test/fixtures/kube/meta.js";
import { controllerOf, currentPods, currentReplicaSet, isControlledBy, objectKey, ownedBy } from "./index.js";

const api = deployment({ name: "api", revision: "4" });
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
const previous = replicaSet(api, { name: "api-5d4b8c7f6", revision: "3", replicas: 1 });

describe("controllerOf", () => {
  it("returns the controller reference and ignores plain garbage-collection owners", () => {
    const owned = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current });
    owned.metadata.ownerReferences = [
      { apiVersion: "v1", kind: "ConfigMap", name: "bundle", uid: uidOf("configmap/bundle") },
      ...(owned.metadata.ownerReferences ?? []),
    ];
    expect(controllerOf(owned)).toEqual(controllerRef(current));
  });

  it("is undefined for a bare pod", () => {
    expect(controllerOf(pod({ name: "debug" }))).toBeUndefined();
  });
});

describe("ownedBy", () => {
  it("ignores a sibling pod with the same labels but another owner", () => {
    const ledger = statefulSet({ name: "ledger", status: {} });
    const ours = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, labels: { "app.kubernetes.io/name": "api" } });
    // kustomize commonLabels stamped our selector labels onto another workload's pod.
    const sibling = pod({ name: "ledger-0", owner: ledger, labels: { "app.kubernetes.io/name": "api" } });
    const bare = pod({ name: "api-debug", labels: { "app.kubernetes.io/name": "api" } });
    expect(ownedBy(current, [ours, sibling, bare]).map(objectKey)).toEqual(["payments/api-7f9c6d8b5-x2k8p"]);
  });

  it("ignores pods of a deleted workload that was re-created under the same name", () => {
    const before = job({ name: "schema-migrate", uid: uidOf("job/schema-migrate/first"), status: {} });
    const after = job({ name: "schema-migrate", uid: uidOf("job/schema-migrate/second"), status: {} });
    const orphan = pod({ name: "schema-migrate-4hx9d", owner: before });
    const fresh = pod({ name: "schema-migrate-8q2lw", owner: after });
    expect(isControlledBy(orphan, after)).toBe(false);
    expect(ownedBy(after, [orphan, fresh]).map((p) => p.metadata.name)).toEqual(["schema-migrate-8q2lw"]);
  });
});

describe("currentReplicaSet", () => {
  it("is the owned ReplicaSet carrying the Deployment's revision", () => {
    expect(currentReplicaSet(api, [previous, current])?.metadata.name).toBe("api-7f9c6d8b5");
  });

  it("ignores another Deployment's ReplicaSet with the same revision", () => {
    const other = deployment({ name: "api", uid: uidOf("deployment/api/previous-incarnation"), revision: "4" });
    const foreign = replicaSet(other, { name: "api-6b8d9f7c4", revision: "4", replicas: 2 });
    expect(currentReplicaSet(api, [foreign, previous])).toBeUndefined();
  });

  it("is undefined until the controller has written the revision", () => {
    const fresh = deployment({ name: "api" });
    fresh.metadata.annotations = {};
    expect(currentReplicaSet(fresh, [current])).toBeUndefined();
  });
});

describe("currentPods", () => {
  it("keeps only the pods of the current ReplicaSet", () => {
    const pods = [
      pod({ name: "api-5d4b8c7f6-m4n7q", owner: previous }),
      pod({ name: "api-7f9c6d8b5-x2k8p", owner: current, containers: [running("api")] }),
      pod({ name: "api-7f9c6d8b5-w8tqz", owner: current }),
    ];
    expect(currentPods(api, [previous, current], pods).map((p) => p.metadata.name)).toEqual([
      "api-7f9c6d8b5-x2k8p",
      "api-7f9c6d8b5-w8tqz",
    ]);
  });
});

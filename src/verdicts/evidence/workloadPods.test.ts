// revisionOf: the new revision an analysis's {{revision}} selects, as the informer cache holds the
// objects (no labels but stagewatch's own, so a ReplicaSet's hash is read off its name).
import { describe, expect, it } from "vitest";
import { deployment, replicaSet, rollingOutDeployment, statefulSet } from "../../../test/fixtures/kube/workloads.js";
import { revisionOf } from "./workloadPods.js";

const rolledOut = deployment({ replicas: 2 });
const old = replicaSet(rolledOut, { name: "api-5d4b8c7f6", revision: "3" });
const current = replicaSet(rolledOut, { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 2 });
const withoutLabels = <T extends { metadata: { labels?: Record<string, string> } }>(object: T): T => ({ ...object, metadata: { ...object.metadata, labels: {} } });

describe("revisionOf", () => {
  it("a Deployment: its current ReplicaSet's pod-template-hash, read off the name the controller gave it", () => {
    expect(revisionOf(rolledOut, { pods: [], replicaSets: [withoutLabels(old), withoutLabels(current)] })).toBe("7f9c6d8b5");
  });

  it("a Deployment whose current ReplicaSet is not read yet: not known", () => {
    expect(revisionOf(rollingOutDeployment({ replicas: 2, ready: 0 }), { pods: [], replicaSets: [old] })).toBeUndefined();
  });

  it("a StatefulSet: its updateRevision, its pods' controller-revision-hash", () => {
    const ledger = statefulSet({ status: { observedGeneration: 4, replicas: 3, readyReplicas: 3, currentRevision: "ledger-6c9d8f7b4", updateRevision: "ledger-6c9d8f7b4" } });
    expect(revisionOf(ledger, { pods: [], replicaSets: [] })).toBe("ledger-6c9d8f7b4");
  });
});

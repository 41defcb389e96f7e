// What a settled workload runs, as its verdict says: the digests of its ready pods' ready
// containers, not its old ReplicaSet's pods, not an unready container's, once each.
import { describe, expect, it } from "vitest";
import { pod, running, waiting } from "../../../test/fixtures/kube/pods.js";
import { deployment, replicaSet } from "../../../test/fixtures/kube/workloads.js";
import { readyImages } from "./readyImages.js";

const api = deployment();
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
const previous = replicaSet(api, { name: "api-5d4b8c7f6", revision: "3", replicas: 1 });
const withImage = (name: string, imageID: string, ready = true) => ({ ...running(name, { ready }), imageID });

describe("readyImages", () => {
  it("the current ReplicaSet's ready pods' digests, sorted and distinct; an old pod's and an unready container's left out", () => {
    const pods = [
      pod({ name: "api-7f9c6d8b5-a", owner: current, containers: [withImage("api", "ghcr.io/acme/api@sha256:bbb"), withImage("proxy", "ghcr.io/acme/proxy@sha256:aaa")] }),
      pod({ name: "api-7f9c6d8b5-b", owner: current, containers: [withImage("api", "ghcr.io/acme/api@sha256:bbb"), withImage("proxy", "ghcr.io/acme/proxy@sha256:aaa")] }),
      pod({ name: "api-5d4b8c7f6-c", owner: previous, containers: [withImage("api", "ghcr.io/acme/api@sha256:old")] }),
    ];
    expect(readyImages(api, { replicaSets: [current, previous], pods })).toEqual(["ghcr.io/acme/api@sha256:bbb", "ghcr.io/acme/proxy@sha256:aaa"]);
    const unready = [pod({ name: "api-7f9c6d8b5-a", owner: current, phase: "Pending", containers: [waiting("api", "ContainerCreating")] })];
    expect(readyImages(api, { replicaSets: [current], pods: unready })).toBeUndefined();
  });

  it("a kind that owns no pods has none", () => {
    expect(readyImages({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "n", uid: "u" } }, { replicaSets: [], pods: [] })).toBeUndefined();
  });
});

// The objects the watch-throughput benchmark serves: `deployments` Deployments rolling out (one of
// their pods not ready, so every observation stays pending), each with its ReplicaSet and
// `podsPerDeployment` pods built from the realistic running pod of src/streams/fixtures (6.8 KB of
// JSON with managedFields, the full spec and status), each with its own name, UID, IP and
// container ID. Built the same way by the server process and by the benchmark, so both hold the
// same bytes.
import { readFileSync } from "node:fs";
import type { KubeObject } from "../../src/kube/objects.ts";
import { namespace as fixtureNamespace } from "../../test/fixtures/kube/meta.ts";
import { deployment as rolledOutDeployment } from "../../test/fixtures/kube/workloads.ts";
import { rollingOut } from "../support/rollingOut.ts";

export interface WatchClusterSize {
  deployments: number;
  podsPerDeployment: number;
  /** Namespaces the Deployments are spread over, Deployment d in namespaceOf(d); 1 (the fixtures' `payments`) when left out. */
  namespaces?: number;
}

/** Deployment d's namespace: the fixtures' own with one namespace, else `payments-<d mod namespaces>`. */
export function namespaceOf({ namespaces = 1 }: WatchClusterSize, d: number): string {
  return namespaces === 1 ? fixtureNamespace : `${fixtureNamespace}-${d % namespaces}`;
}

/** `object` moved to namespace `namespace`. */
export function inNamespace<T extends KubeObject>(object: T, namespace: string): T {
  return { ...object, metadata: { ...object.metadata, namespace } };
}

export interface WatchCluster {
  deployments: KubeObject[];
  replicaSets: KubeObject[];
  /** The pods as the API server's JSON, one text per pod. */
  podJson: string[];
}

const podTemplate = JSON.parse(readFileSync(new URL("../../src/streams/fixtures/pod-running.json", import.meta.url), "utf8")) as {
  metadata: Record<string, unknown>;
  status: Record<string, unknown>;
};
const hex = (i: number, width: number) => i.toString(16).padStart(width, "0");

export function watchCluster(size: WatchClusterSize): WatchCluster {
  const { deployments, podsPerDeployment } = size;
  const cluster: WatchCluster = { deployments: [], replicaSets: [], podJson: [] };
  for (let d = 0; d < deployments; d++) {
    const name = `app-${d}`;
    const workload = rollingOut(name, podsPerDeployment, podsPerDeployment - 1);
    const rolling = inNamespace(workload.deployment, namespaceOf(size, d));
    const rs = inNamespace(workload.replicaSet, namespaceOf(size, d));
    cluster.deployments.push(rolling);
    cluster.replicaSets.push(rs);
    for (let p = 0; p < podsPerDeployment; p++) {
      const i = d * podsPerDeployment + p;
      const pod = structuredClone(podTemplate);
      const podName = `${rs.metadata.name}-${p.toString(36).padStart(5, "0")}`;
      Object.assign(pod.metadata, {
        name: podName,
        generateName: `${rs.metadata.name}-`,
        namespace: rs.metadata.namespace,
        uid: `d2a7c6e1-3b5f-4a90-8e1d-${hex(i, 12)}`,
        resourceVersion: "1",
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true },
        ],
      });
      const ip = `10.244.${(i >> 8) & 255}.${i & 255}`;
      Object.assign(pod.status, { podIP: ip, podIPs: [{ ip }] });
      let text = JSON.stringify(pod);
      text = text.replaceAll("9b1f0c7e5d3a2b8c4e6f7a1d0c9b8e7f6a5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b", `${hex(i, 8)}${"9b1f0c7e".repeat(7)}`);
      cluster.podJson.push(text);
    }
  }
  return cluster;
}

/**
 * One watch line per pod update, at resourceVersion `resourceVersion`: the pod as it is (a
 * re-send: what a relist or a status write of fields the strip drops looks like to the rules), or
 * with its container restarted `restarts` times (a kubelet's status write the rules read).
 */
export function podWatchLines(cluster: WatchCluster, resourceVersion: string, restarts?: number): string[] {
  return cluster.podJson.map((json) => {
    const updated = json.replace('"resourceVersion":"1"', `"resourceVersion":"${resourceVersion}"`);
    return `{"type":"MODIFIED","object":${restarts === undefined ? updated : updated.replace('"restartCount":0', `"restartCount":${restarts}`)}}`;
  });
}

/**
 * The Deployment watch of a rollout seen from its observers (bench/bus-ops): every Deployment's
 * ready count going up one replica at a time, all Deployments a step at a time, each still
 * pending (what the Deployment controller writes while pods become ready: "3/20 ready" to "4/20
 * ready"), then each rolled out, which decides its observation. The pods stay as listed (ready).
 */
export function deploymentRolloutLines({ deployments, podsPerDeployment }: WatchClusterSize): { rollingOut: string[]; rolledOut: string[] } {
  const line = (object: KubeObject, resourceVersion: number) =>
    `{"type":"MODIFIED","object":${JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: String(resourceVersion) } })}}`;
  const rolling: string[] = [];
  let resourceVersion = 2;
  for (let ready = 0; ready < podsPerDeployment; ready++) {
    for (let d = 0; d < deployments; d++) rolling.push(line(rollingOut(`app-${d}`, podsPerDeployment, ready).deployment, resourceVersion++));
  }
  const done = Array.from({ length: deployments }, (_, d) => line(rolledOutDeployment({ name: `app-${d}`, replicas: podsPerDeployment }) as KubeObject, resourceVersion++));
  return { rollingOut: rolling, rolledOut: done };
}

// The workload the engine benchmarks observe: a Deployment mid-rollout with every replica updated
// and `ready` of them ready (so its observation stays pending), and its current ReplicaSet.
import type { KubeObject } from "../../src/kube/objects.ts";
import { replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.ts";

export function rollingOut(name: string, replicas: number, ready: number): { deployment: KubeObject; replicaSet: KubeObject } {
  const rolling = rollingOutDeployment({ name, replicas, ready });
  return { deployment: rolling, replicaSet: replicaSet(rolling, { name: `${name}-7f9c6d8b5`, revision: "4", replicas, ready }) };
}

// The workload the engine benchmarks observe: a Deployment mid-rollout with every replica updated
// and `ready` of them ready (so its observation stays pending), and its current ReplicaSet.
import type { KubeObject } from "../../src/kube/objects.ts";
import { deployment, deploymentConditions, replicaSet } from "../../test/fixtures/kube/workloads.ts";

export function rollingOut(name: string, replicas: number, ready: number): { deployment: KubeObject; replicaSet: KubeObject } {
  const rolling = deployment({
    name,
    replicas,
    status: {
      observedGeneration: 7,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: ready,
      availableReplicas: ready,
      unavailableReplicas: replicas - ready,
      conditions: [deploymentConditions.unavailable(), deploymentConditions.progressing(`${name}-7f9c6d8b5`)],
    },
  });
  return { deployment: rolling, replicaSet: replicaSet(rolling, { name: `${name}-7f9c6d8b5`, revision: "4", replicas, ready }) };
}

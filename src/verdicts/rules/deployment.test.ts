import { describe, expect, it } from "vitest";
import { defaultFailOn } from "../contract/schemas.js";
import { pod, waiting } from "../../../test/fixtures/kube/pods.js";
import { transitionAt } from "../../../test/fixtures/kube/meta.js";
import { deployment, deploymentConditions as c, replicaSet } from "../../../test/fixtures/kube/workloads.js";
import { evaluateResource, type EvaluationInput } from "../evaluation/registry.js";
import type { ResourceReading } from "./reading.js";

const rs = "api-7f9c6d8b5";
const api = deployment();
const current = replicaSet(api, { name: rs, revision: "4", replicas: 3 });
const previous = replicaSet(api, { name: "api-5d4b8c7f6", revision: "3", replicas: 1 });
const pullBackOff = waiting("api", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/payments-api:1.4.3"');
const quota =
  'pods "api-7f9c6d8b5-v6xzq" is forbidden: exceeded quota: payments-quota, requested: limits.memory=512Mi, used: limits.memory=1536Mi, limited: limits.memory=1536Mi';

const readyPods = ["x2k8p", "w8tqz", "h5m2c"].map((suffix) => pod({ name: `${rs}-${suffix}`, owner: current }));

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const cases: Case[] = [
  {
    name: "rolled out: every replica updated, available and ready",
    input: { object: api, owned: { replicaSets: [previous, current], pods: readyPods } },
    // Three ready pods of one image: its digest once (readyImages.ts).
    expected: { replicas: 3, state: "settled", message: "3/3 replicas ready, 3 updated", images: ["ghcr.io/acme/payments-api@sha256:9b2f6c1e0d8a7b4c3e5f1a2d6c8b0e4f7a9d3c5b1e2f4a6c8d0b2e4f6a8c1d3e"] },
  },
  {
    name: "observedGeneration behind generation while the counts look complete",
    input: {
      object: deployment({
        generation: 8,
        status: { observedGeneration: 7, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: [c.available(), c.complete(rs)] },
      }),
    },
    expected: { state: "pending", reason: "GenerationNotObserved", message: 'generation 8 not yet observed by its controller (status is for 7); Available=True MinimumReplicasAvailable: Deployment has minimum availability.; Progressing=True NewReplicaSetAvailable: ReplicaSet "api-7f9c6d8b5" has successfully progressed.' },
  },
  {
    name: "the request names a generation the cluster has not got yet",
    input: { object: api, requestedGeneration: 8 },
    expected: { state: "pending", reason: "WaitingForGeneration", message: "waiting for generation 8 (cluster has 7)" },
  },
  {
    name: "no status written by the controller yet",
    input: { object: deployment({ status: null }) },
    expected: { state: "pending", reason: "AwaitingStatus", message: "the Deployment controller has not reported status yet" },
  },
  {
    name: "being deleted",
    input: { object: { ...api, metadata: { ...api.metadata, deletionTimestamp: "2026-11-29T10:03:00Z" } } },
    expected: { state: "pending", reason: "Terminating", message: "being deleted since 2026-11-29T10:03:00Z" },
  },
  {
    name: "old replicas still terminating after the new ones are ready",
    input: {
      object: deployment({
        status: {
          observedGeneration: 7,
          replicas: 3,
          updatedReplicas: 3,
          readyReplicas: 3,
          availableReplicas: 3,
          terminatingReplicas: 1,
          conditions: [c.available(), c.complete(rs)],
        },
      }),
      owned: {
        replicaSets: [previous, current],
        pods: [...readyPods, pod({ name: "api-5d4b8c7f6-m4n7q", owner: previous, deletionTimestamp: "2026-11-29T10:02:30Z" })],
      },
    },
    expected: { replicas: 3, state: "pending", message: "3/3 replicas ready, 3 updated, 1 terminating" },
  },
  {
    name: "an old replica not scaled down yet",
    input: {
      object: deployment({
        status: { observedGeneration: 7, replicas: 4, updatedReplicas: 3, readyReplicas: 4, availableReplicas: 4, conditions: [c.available(), c.progressing(rs)] },
      }),
      owned: { replicaSets: [previous, current], pods: [...readyPods, pod({ name: "api-5d4b8c7f6-m4n7q", owner: previous })] },
    },
    expected: { replicas: 3, state: "pending", message: "4/3 replicas ready, 3 updated, 1 old replica pending termination" },
  },
  {
    name: "Progressing=False/ProgressDeadlineExceeded is pending with its reason, not failed",
    input: {
      object: deployment({
        status: {
          observedGeneration: 7,
          replicas: 3,
          updatedReplicas: 3,
          readyReplicas: 2,
          availableReplicas: 2,
          unavailableReplicas: 1,
          conditions: [c.available(), c.deadlineExceeded(rs)],
        },
      }),
      owned: { replicaSets: [current], pods: [...readyPods.slice(0, 2), pod({ name: `${rs}-q7r4t`, owner: current, phase: "Pending", containers: [waiting("api", "ContainerCreating")] })] },
    },
    expected: {
      replicas: 3,
      state: "pending",
      reason: "ProgressDeadlineExceeded",
      message: `2/3 replicas ready, 3 updated; ProgressDeadlineExceeded: ReplicaSet "${rs}" has timed out progressing.; pod ${rs}-q7r4t container api: ContainerCreating`,
    },
  },
  {
    name: "ReplicaFailure (quota refused a pod) is pending with the API server's refusal",
    input: {
      object: deployment({
        status: {
          observedGeneration: 7,
          replicas: 2,
          updatedReplicas: 2,
          readyReplicas: 2,
          availableReplicas: 2,
          unavailableReplicas: 1,
          conditions: [c.available(), c.progressing(rs), c.replicaFailure(quota)],
        },
      }),
      owned: { replicaSets: [current], pods: readyPods.slice(0, 2) },
    },
    expected: { replicas: 3, state: "pending", reason: "FailedCreate", message: `2/3 replicas ready, 2 updated; FailedCreate: ${quota}` },
  },
  {
    name: "paused with complete counts stays pending",
    input: {
      object: deployment({
        paused: true,
        status: { observedGeneration: 7, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, conditions: [c.available(), c.paused()] },
      }),
      owned: { replicaSets: [current], pods: readyPods },
    },
    expected: { replicas: 3, state: "pending", reason: "Paused", message: "3/3 replicas ready, 3 updated; Paused: Deployment is paused" },
  },
  {
    name: "scaled to zero replicas",
    input: { object: deployment({ replicas: 0, status: { observedGeneration: 7, conditions: [c.available(), c.complete(rs)] } }) },
    expected: { replicas: 0, state: "settled", message: "0/0 replicas ready, 0 updated" },
  },
  {
    name: "a pod of the current ReplicaSet in ImagePullBackOff fails it",
    input: {
      object: deployment({
        status: {
          observedGeneration: 7,
          replicas: 4,
          updatedReplicas: 1,
          readyReplicas: 3,
          availableReplicas: 3,
          unavailableReplicas: 1,
          conditions: [c.available(), c.progressing(rs)],
        },
      }),
      owned: {
        replicaSets: [previous, current],
        pods: [
          pod({ name: `${rs}-x2k8p`, owner: current, phase: "Pending", containers: [pullBackOff] }),
          ...["m4n7q", "p9s3v", "k2d8f"].map((suffix) => pod({ name: `api-5d4b8c7f6-${suffix}`, owner: previous })),
        ],
      },
    },
    expected: { replicas: 3, state: "failed", held: { about: "Pod api-7f9c6d8b5-x2k8p", sinceMs: Date.parse(transitionAt) }, reason: "ImagePullBackOff", message: `3/3 replicas ready, 1 updated, 3 old replicas; pod ${rs}-x2k8p container api: ImagePullBackOff` },
  },
  {
    name: "the same ImagePullBackOff in an old ReplicaSet's pod is ignored",
    input: {
      object: deployment({
        status: { observedGeneration: 7, replicas: 4, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 1, conditions: [c.available(), c.progressing(rs)] },
      }),
      owned: { replicaSets: [previous, current], pods: [...readyPods, pod({ name: "api-5d4b8c7f6-m4n7q", owner: previous, phase: "Pending", containers: [pullBackOff] })] },
    },
    expected: { replicas: 3, state: "pending", message: "3/3 replicas ready, 3 updated, 1 old replica pending termination" },
  },
  {
    name: "a terminating pod of the current ReplicaSet does not speak for it",
    input: {
      object: deployment({
        status: { observedGeneration: 7, replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 1, conditions: [c.available(), c.progressing(rs)] },
      }),
      owned: {
        replicaSets: [current],
        pods: [...readyPods.slice(0, 2), pod({ name: `${rs}-z1c5n`, owner: current, phase: "Pending", containers: [pullBackOff], deletionTimestamp: "2026-11-29T10:02:30Z" })],
      },
    },
    expected: { replicas: 3, state: "pending", message: "2/3 replicas ready, 3 updated" },
  },
];

describe("Deployment rule", () => {
  it.each(cases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

// An HPA scaled the Deployment while it was observed: spec.replicas went from 3 to 5 through the
// scale subresource, which bumped metadata.generation to 8, and the controller has observed it.
// The new ReplicaSet's pods: three ready and available, two just created by the scale-up.
const scaledUp = { from: 3, to: 5 };
const five = (status: Record<string, unknown>) => deployment({ generation: 8, replicas: 5, status: { observedGeneration: 8, ...status } });
const scaledCurrent = replicaSet(five({}), { name: rs, revision: "4", replicas: 5, ready: 4 });
const starting = pod({ name: `${rs}-n3j7w`, owner: scaledCurrent, phase: "Pending", containers: [waiting("api", "ContainerCreating")] });
// Four of five ready: the three from before the scale and one of the two it added.
const scaledPods = { replicaSets: [previous, scaledCurrent], pods: [...readyPods, pod({ name: `${rs}-t6v9b`, owner: scaledCurrent }), starting] };
const readyImages = ["ghcr.io/acme/payments-api@sha256:9b2f6c1e0d8a7b4c3e5f1a2d6c8b0e4f7a9d3c5b1e2f4a6c8d0b2e4f6a8c1d3e"];
const scaleCases: Case[] = [
  {
    name: "scaled up mid-rollout: fewer ready than the new spec.replicas is pending, never a failure",
    input: {
      object: five({ replicas: 6, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 3, conditions: [c.unavailable(), c.progressing(rs)] }),
      owned: { replicaSets: [previous, scaledCurrent], pods: [...readyPods, starting] },
      scaled: scaledUp,
    },
    expected: { replicas: 5, state: "pending", reason: "ContainerCreating", message: `3/5 replicas ready, 3 updated, 3 old replicas; pod ${rs}-n3j7w container api: ContainerCreating` },
  },
  {
    name: "rolled out before the scale, the extra replicas still starting: the controller's NewReplicaSetAvailable and Available=True settle it",
    input: {
      object: five({ replicas: 5, updatedReplicas: 5, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1, conditions: [c.available(), c.complete(rs)] }),
      owned: scaledPods,
      scaled: scaledUp,
    },
    expected: { replicas: 5, state: "settled", message: "4/5 replicas ready, 5 updated; rollout complete (NewReplicaSetAvailable) before the scale finished", images: readyImages },
  },
  {
    name: "the same status with no scale seen: every replica must be ready, as kubectl rollout status waits",
    input: {
      object: five({ replicas: 5, updatedReplicas: 5, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1, conditions: [c.available(), c.complete(rs)] }),
      owned: scaledPods,
    },
    expected: { replicas: 5, state: "pending", reason: "ContainerCreating", message: `4/5 replicas ready, 5 updated; pod ${rs}-n3j7w container api: ContainerCreating` },
  },
  {
    name: "scaled, but NewReplicaSetAvailable names the previous ReplicaSet (the last rollout's word, not this one's)",
    input: {
      object: five({ replicas: 5, updatedReplicas: 5, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1, conditions: [c.available(), c.complete("api-5d4b8c7f6")] }),
      owned: scaledPods,
      scaled: scaledUp,
    },
    expected: { replicas: 5, state: "pending", reason: "ContainerCreating", message: `4/5 replicas ready, 5 updated; pod ${rs}-n3j7w container api: ContainerCreating` },
  },
  {
    name: "scaled and rolled out, but below maxUnavailable at the new count (Available=False): pending",
    input: {
      object: five({ replicas: 5, updatedReplicas: 5, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 2, conditions: [c.unavailable(), c.complete(rs)] }),
      owned: scaledPods,
      scaled: scaledUp,
    },
    expected: { replicas: 5, state: "pending", reason: "ContainerCreating", message: `3/5 replicas ready, 5 updated; pod ${rs}-n3j7w container api: ContainerCreating` },
  },
  {
    name: "scaled down 5 -> 3 after the rollout: the new ReplicaSet's extra pods terminating hold it until they are gone",
    input: {
      object: deployment({ generation: 9, replicas: 3, status: { observedGeneration: 9, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, terminatingReplicas: 2, conditions: [c.available(), c.complete(rs)] } }),
      owned: { replicaSets: [current], pods: readyPods },
      scaled: { from: 5, to: 3 },
    },
    expected: { replicas: 3, state: "pending", message: "3/3 replicas ready, 3 updated, 2 terminating" },
  },
];

describe("Deployment rule under autoscaling", () => {
  it.each(scaleCases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

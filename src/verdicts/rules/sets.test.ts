import { describe, expect, it } from "vitest";
import { defaultFailOn } from "../contract/schemas.js";
import { pod, running, waiting } from "../../../test/fixtures/kube/pods.js";
import { transitionAt } from "../../../test/fixtures/kube/meta.js";
import { daemonSet, statefulSet } from "../../../test/fixtures/kube/workloads.js";
import { evaluateResource, type EvaluationInput } from "../evaluation/registry.js";
import type { ResourceReading } from "./reading.js";

const oldRevision = "ledger-5d8f7c9b6";
const newRevision = "ledger-6c9b7d5f8";
const partitioned = { type: "RollingUpdate", rollingUpdate: { partition: 2 } };
const onDelete = { type: "OnDelete" };

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const ledger = (updateStrategy: Record<string, unknown> | undefined, status: Record<string, unknown>) =>
  statefulSet({ ...(updateStrategy && { updateStrategy }), status: { observedGeneration: 4, replicas: 3, availableReplicas: status["readyReplicas"], ...status } });

const statefulSetCases: Case[] = [
  {
    name: "partition 2: the one pod above the partition updated and all ready",
    input: { object: ledger(partitioned, { readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1, currentRevision: oldRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "settled", message: "3/3 replicas ready, 1 updated, partition 2" },
  },
  {
    name: "partition 2: the pod above the partition not updated yet",
    input: { object: ledger(partitioned, { readyReplicas: 3, currentReplicas: 3, updatedReplicas: 0, currentRevision: oldRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "pending", message: "3/3 replicas ready, 0 updated, partition 2" },
  },
  {
    name: "no partition, rolling: revisions differ",
    input: { object: ledger(undefined, { readyReplicas: 2, currentReplicas: 2, updatedReplicas: 1, currentRevision: oldRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "pending", message: `2/3 replicas ready, 1 updated, rolling from revision ${oldRevision} to ${newRevision}` },
  },
  {
    name: "no partition: counts complete but the controller has not moved currentRevision yet",
    input: { object: ledger(undefined, { readyReplicas: 3, currentReplicas: 0, updatedReplicas: 3, currentRevision: oldRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "pending", message: `3/3 replicas ready, 3 updated, rolling from revision ${oldRevision} to ${newRevision}` },
  },
  {
    name: "no partition: revisions equal, all ready",
    input: { object: ledger(undefined, { readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: newRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "settled", message: "3/3 replicas ready, 3 updated" },
  },
  {
    name: "OnDelete: all ready although none updated",
    input: { object: ledger(onDelete, { readyReplicas: 3, currentReplicas: 3, updatedReplicas: 0, currentRevision: oldRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "settled", message: "3/3 replicas ready, 0 updated, OnDelete: pods update when deleted" },
  },
  {
    name: "OnDelete: a replica not ready",
    input: { object: ledger(onDelete, { readyReplicas: 2, currentReplicas: 3, updatedReplicas: 0, currentRevision: oldRevision, updateRevision: newRevision }) },
    expected: { replicas: 3, state: "pending", message: "2/3 replicas ready, 0 updated, OnDelete: pods update when deleted" },
  },
  {
    name: "an owned pod in ImagePullBackOff fails it; a sibling with the same labels does not count",
    input: (() => {
      const object = ledger(undefined, { readyReplicas: 2, currentReplicas: 2, updatedReplicas: 1, currentRevision: oldRevision, updateRevision: newRevision });
      const other = statefulSet({ name: "ledger-replica", status: {} });
      return {
        object,
        owned: {
          replicaSets: [],
          pods: [
            pod({ name: "ledger-0", owner: object, containers: [running("postgres")] }),
            pod({ name: "ledger-1", owner: object, containers: [running("postgres")] }),
            pod({ name: "ledger-2", owner: object, phase: "Pending", containers: [waiting("postgres", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/ledger:16.4"')] }),
            pod({ name: "ledger-replica-0", owner: other, phase: "Pending", containers: [waiting("postgres", "InvalidImageName", "invalid reference format")] }),
          ],
        },
      };
    })(),
    expected: { replicas: 3, state: "failed", held: { about: "Pod ledger-2", sinceMs: Date.parse(transitionAt) }, reason: "ImagePullBackOff", message: `2/3 replicas ready, 1 updated, rolling from revision ${oldRevision} to ${newRevision}; pod ledger-2 container postgres: ImagePullBackOff` },
  },
];

const agent = (updateStrategy: Record<string, unknown> | undefined, status: Record<string, unknown>) =>
  daemonSet({ ...(updateStrategy && { updateStrategy }), status: { observedGeneration: 2, currentNumberScheduled: 3, desiredNumberScheduled: 3, ...status } });

const daemonSetCases: Case[] = [
  {
    name: "rolling update in progress",
    input: { object: agent(undefined, { updatedNumberScheduled: 1, numberAvailable: 2, numberReady: 2, numberUnavailable: 1 }) },
    expected: { state: "pending", message: "2/3 pods ready, 1 updated" },
  },
  {
    name: "rolling update done",
    input: { object: agent(undefined, { updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 3 }) },
    expected: { state: "settled", message: "3/3 pods ready, 3 updated" },
  },
  {
    name: "ready but not yet available (minReadySeconds)",
    input: { object: agent(undefined, { updatedNumberScheduled: 3, numberAvailable: 2, numberReady: 3, numberUnavailable: 1 }) },
    expected: { state: "pending", message: "3/3 pods ready, 3 updated, 2 available" },
  },
  {
    name: "OnDelete: available on every node although none updated",
    input: { object: agent(onDelete, { updatedNumberScheduled: 0, numberAvailable: 3, numberReady: 3 }) },
    expected: { state: "settled", message: "3/3 pods ready, 0 updated, OnDelete: pods update when deleted" },
  },
  {
    name: "OnDelete: a node's pod unavailable",
    input: { object: agent(onDelete, { updatedNumberScheduled: 0, numberAvailable: 2, numberReady: 2, numberUnavailable: 1 }) },
    expected: { state: "pending", message: "2/3 pods ready, 0 updated, OnDelete: pods update when deleted" },
  },
  {
    name: "generation not observed yet",
    input: { object: daemonSet({ generation: 3, status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 3 } }) },
    expected: { state: "pending", reason: "GenerationNotObserved", message: "generation 3 not yet observed by its controller (status is for 2)" },
  },
];

describe("StatefulSet rule", () => {
  it.each(statefulSetCases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

describe("DaemonSet rule", () => {
  it.each(daemonSetCases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

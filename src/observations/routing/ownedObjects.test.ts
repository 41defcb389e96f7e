// A workload's reading from the engine's index (pod problems kept per owner, PodProblemTally) is
// the reading the rules make walking every pod and ReplicaSet the caches hold, after every event of
// random sequences: pods changing, adopted by another ReplicaSet, deleted (with their last state or
// a stale tombstone), re-created under their name with a new UID, being deleted; the current
// ReplicaSet re-created with a new UID; another Deployment's ReplicaSet with the same revision; a
// relist after 410 Gone replacing everything at once.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import { objectKey } from "../../ownership/index.js";
import { pod, running, terminated, waiting } from "../../../test/fixtures/kube/pods.js";
import { uidOf } from "../../../test/fixtures/kube/meta.js";
import { deployment, replicaSet, rollingOutDeployment, statefulSet } from "../../../test/fixtures/kube/workloads.js";
import { evaluateResource } from "../../verdicts/index.js";
import { OwnedObjectIndex } from "./ownedObjects.js";

const rolledOut = deployment({ name: "api", revision: "4" });
const rollingOut = rollingOutDeployment({ name: "api", revision: "4", ready: 1 });
const current = replicaSet(rolledOut, { name: "api-7f9c6d8b5", revision: "4", replicas: 3 });
const currentAgain = replicaSet(rolledOut, { name: "api-7f9c6d8b5", revision: "4", replicas: 3, uid: uidOf("replicaset/api-7f9c6d8b5/again") });
const previous = replicaSet(rolledOut, { name: "api-5d4b8c7f6", revision: "3", replicas: 1 });
const otherApi = deployment({ name: "api", uid: uidOf("deployment/api/previous-incarnation"), revision: "4" });
const foreign = replicaSet(otherApi, { name: "api-6b8d9f7c4", revision: "4", replicas: 2 });
const ledger = statefulSet({ name: "ledger", status: { observedGeneration: 4, replicas: 3, readyReplicas: 2, updatedReplicas: 3, currentRevision: "ledger-1", updateRevision: "ledger-1" } });
const workloads: KubeObject[] = [rolledOut, rollingOut, ledger];
const failOn = new Set(["ImagePullBackOff", "CrashLoopBackOff"]);

const container = fc.oneof(
  fc.constant(running("api")),
  fc.constant(running("api", { ready: false })),
  fc.constantFrom("ImagePullBackOff", "CrashLoopBackOff", "ContainerCreating").map((reason) => waiting("api", reason, `${reason} message`)),
  fc.constant(terminated("api", { exitCode: 1, reason: "Error", message: "exit 1" })),
);
const podAt = (slot: number) =>
  fc
    .record({
      owner: fc.constantFrom<KubeObject | undefined>(current, currentAgain, previous, foreign, ledger, undefined),
      containers: fc.array(container, { minLength: 1, maxLength: 2 }),
      phase: fc.constantFrom("Pending", "Running" as const),
      unschedulable: fc.option(fc.constant("0/3 nodes are available"), { nil: undefined }),
      deleting: fc.boolean(),
      incarnation: fc.nat({ max: 2 }),
    })
    .map(({ owner, containers, phase, unschedulable, deleting, incarnation }) => {
      const made = pod({
        name: `api-7f9c6d8b5-${slot}`,
        ...(owner && { owner }),
        containers: containers.map((c, i) => ({ ...c, name: `c${i}` })),
        phase,
        ...(unschedulable && { unschedulable }),
        ...(deleting && { deletionTimestamp: "2026-11-29T10:01:00Z" }),
      });
      return { ...made, metadata: { ...made.metadata, uid: uidOf(`pod/${slot}/${incarnation}`) } };
    });

type Step =
  | { kind: "pod"; slot: number; next: Pod | undefined; tombstone: boolean }
  | { kind: "replicaSet"; slot: number; next: ReplicaSet | undefined }
  | { kind: "relist"; pods: (Pod | undefined)[] };
const podSlots = 6;
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.nat({ max: podSlots - 1 }).chain((slot) => fc.record({ kind: fc.constant("pod" as const), slot: fc.constant(slot), next: fc.option(podAt(slot), { nil: undefined }), tombstone: fc.boolean() })) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.record({ kind: fc.constant("replicaSet" as const), slot: fc.constant(0), next: fc.constantFrom(current, currentAgain, undefined) }),
      fc.record({ kind: fc.constant("replicaSet" as const), slot: fc.constant(1), next: fc.constantFrom(previous, undefined) }),
      fc.record({ kind: fc.constant("replicaSet" as const), slot: fc.constant(2), next: fc.constantFrom(foreign, undefined) }),
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("relist" as const), pods: fc.tuple(...Array.from({ length: podSlots }, (_, slot) => fc.option(podAt(slot), { nil: undefined }))) }) },
);

describe("OwnedObjectIndex", () => {
  it("reads each workload as the rules do walking every cached pod and ReplicaSet", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const index = new OwnedObjectIndex();
        // What the informers' caches hold, by key.
        const pods = new Map<string, Pod>();
        const replicaSets = new Map<string, ReplicaSet>();
        const applyPod = (slot: number, next: Pod | undefined, tombstone: boolean) => {
          const key = `payments/api-7f9c6d8b5-${slot}`;
          const stored = pods.get(key);
          if (next) {
            index.applyPod(stored ? "modified" : "added", next);
            pods.set(key, next);
          } else if (stored) {
            // A DeletedFinalStateUnknown-style tombstone carries a stale state: no owner at all.
            index.applyPod("deleted", tombstone ? { ...stored, metadata: { ...stored.metadata, ownerReferences: [] } } : stored);
            pods.delete(key);
          }
        };
        const check = () => {
          for (const workload of workloads) {
            const owned = index.ownedBy(workload);
            const walked = evaluateResource({ object: workload, owned: { replicaSets: [...replicaSets.values()], pods: [...pods.values()] }, failOn });
            expect(evaluateResource({ object: workload, owned, failOn })).toEqual(walked);
            // Without the tally, on the index's own lists.
            expect(evaluateResource({ object: workload, owned: { replicaSets: owned.replicaSets, pods: owned.pods }, failOn })).toEqual(walked);
          }
        };
        index.applyReplicaSet("added", current);
        replicaSets.set(objectKey(current), current);
        check();
        for (const event of steps) {
          if (event.kind === "pod") applyPod(event.slot, event.next, event.tombstone);
          else if (event.kind === "relist") event.pods.forEach((next, slot) => applyPod(slot, next, false));
          else {
            const key = [objectKey(current), objectKey(previous), objectKey(foreign)][event.slot]!;
            const stored = replicaSets.get(key);
            if (event.next) {
              index.applyReplicaSet(stored ? "modified" : "added", event.next);
              replicaSets.set(key, event.next);
            } else if (stored) {
              index.applyReplicaSet("deleted", stored);
              replicaSets.delete(key);
            }
          }
          check();
        }
      }),
      { numRuns: 400 },
    );
  });
});

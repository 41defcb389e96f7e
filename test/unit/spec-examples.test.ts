// SPEC section 6's two example lines, reproduced end to end the way the live engine will produce
// them: objects as the API server writes them, pods routed to their workload through OwnerIndex
// (controller UIDs), per-kind rules, then the observation reducer.
import { describe, expect, it } from "vitest";
import type { Deployment, Job, KubeObject, Pod, ReplicaSet } from "../../src/kube/objects.js";
import { OwnerIndex } from "../../src/ownership/index.js";
import {
  advanceClock,
  evaluateResource,
  markCachesSynced,
  objectIdentityKey,
  recordReading,
  toVerdict,
  type ObservationState,
} from "../../src/verdicts/index.js";
import { pod, running, terminated, waiting } from "../fixtures/kube/pods.js";
import { deployment, deploymentConditions as c, job, jobConditions, replicaSet } from "../fixtures/kube/workloads.js";
import { observation, seconds } from "../fixtures/observation.js";

/** The engine's routing: ReplicaSets and pods indexed by controller UID. */
class Cluster {
  readonly replicaSets = new OwnerIndex<ReplicaSet>();
  readonly pods = new OwnerIndex<Pod>();

  constructor(objects: readonly KubeObject[]) {
    for (const obj of objects) {
      if (obj.kind === "ReplicaSet") this.replicaSets.upsert(obj as ReplicaSet);
      if (obj.kind === "Pod") this.pods.upsert(obj as Pod);
    }
  }

  owned(workload: KubeObject) {
    const replicaSets = this.replicaSets.childrenOf(workload.metadata.uid);
    const pods = [workload, ...replicaSets].flatMap((owner) => this.pods.childrenOf(owner.metadata.uid));
    return { replicaSets, pods };
  }

  observe(state: ObservationState, workload: KubeObject, atSeconds: number): ObservationState {
    const requestedGeneration = state.resources.get(objectIdentityKey(workload))?.identity.generation;
    const reading = evaluateResource({ object: workload, owned: this.owned(workload), requestedGeneration, failOn: state.failOn });
    const { uid, generation, labels } = workload.metadata;
    return recordReading(state, objectIdentityKey(workload), { uid, generation, labels, reading }, seconds(atSeconds)).state;
  }
}

function rollingApi(replicas: number, rsName: string): { api: Deployment; current: ReplicaSet } {
  const api = deployment({
    replicas,
    status: {
      observedGeneration: 7,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: 0,
      availableReplicas: 0,
      unavailableReplicas: replicas,
      conditions: [c.unavailable(), c.progressing(rsName)],
    },
  });
  return { api, current: replicaSet(api, { name: rsName, revision: "4", replicas, ready: 0 }) };
}

describe("SPEC section 6 verdict lines", () => {
  it("a bootstrap Job that failed: deployment payments cannot reach bootstrapped", () => {
    const migrate: Job = job({ status: { startTime: "2026-11-29T10:00:02Z", failed: 4, ready: 0, conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") } });
    const attempts = ["4hx9d", "8q2lw", "z6p2m", "k3v7n"].map((suffix, i) =>
      pod({ name: `schema-migrate-${suffix}`, owner: migrate, phase: "Failed", containers: [terminated("migrate", { exitCode: 1, reason: "Error", finishedAt: `2026-11-29T10:0${i}:30Z` })] }),
    );
    const { api, current } = rollingApi(3, "api-7f9c6d8b5");
    const cluster = new Cluster([current, ...attempts]);

    const request = observation({
      resources: [
        { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true },
        { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 },
      ],
    });
    let state = markCachesSynced(request, seconds(1)).state;
    state = cluster.observe(state, job({ status: { startTime: "2026-11-29T10:00:02Z", active: 1, ready: 1 } }), 2);
    state = cluster.observe(state, api, 2);
    expect(state.reached).toBe("applied");
    state = cluster.observe(state, migrate, 95);

    expect(toVerdict(state)).toMatchObject({
      outcome: "failed",
      message: "deployment payments cannot reach bootstrapped: Job payments/schema-migrate: failed: BackoffLimitExceeded: Job has reached the specified backoff limit",
    });
  });

  it("a rollout stuck in ImagePullBackOff (failOn narrowed): deployment payments did not reach healthy within 5m0s", () => {
    const migrate = job({ status: { startTime: "2026-11-29T10:00:02Z", completionTime: "2026-11-29T10:00:41Z", succeeded: 1, ready: 0, conditions: jobConditions.complete() } });
    const { api, current } = rollingApi(2, "api-7f9c");
    const backOff = () => [waiting("api", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/payments-api:1.4.3"')];
    // A broken Deployment next door shares our labels; its pods must not speak for ours.
    const neighbour = deployment({ name: "api-canary", status: {} });
    const neighbourRs = replicaSet(neighbour, { name: "api-canary-6d5f", revision: "4", replicas: 1 });
    const cluster = new Cluster([
      current,
      neighbourRs,
      pod({ name: "api-7f9c-x2", owner: current, phase: "Pending", containers: backOff() }),
      pod({ name: "api-7f9c-z9", owner: current, phase: "Pending", containers: backOff() }),
      pod({ name: "api-canary-6d5f-a1", owner: neighbourRs, phase: "Pending", containers: [waiting("api", "CreateContainerConfigError", 'secret "canary" not found')] }),
      pod({ name: "schema-migrate-8q2lw", owner: migrate, phase: "Succeeded", containers: [terminated("migrate", { exitCode: 0, reason: "Completed" })] }),
    ]);

    let state = markCachesSynced(observation({ failOn: ["InvalidImageName"], resources: [
      { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true },
      { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 },
    ] }), seconds(1)).state;
    state = cluster.observe(state, migrate, 2);
    state = cluster.observe(state, api, 3);
    state = advanceClock(state, seconds(300)).state;

    expect(toVerdict(state)).toMatchObject({
      outcome: "timed_out",
      reached: "bootstrapped",
      message: "deployment payments did not reach healthy within 5m0s: Deployment payments/api: 0/2 replicas ready, 2 updated; pod api-7f9c-x2 container api: ImagePullBackOff",
    });
  });

  it("with the default failOn the same rollout fails at once instead of burning the budget", () => {
    const { api, current } = rollingApi(2, "api-7f9c");
    const cluster = new Cluster([current, pod({ name: "api-7f9c-x2", owner: current, phase: "Pending", containers: [waiting("api", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/payments-api:1.4.3"')] }), pod({ name: "api-7f9c-z9", owner: current, containers: [running("api")] })]);
    const state = cluster.observe(observation({ resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 }] }), api, 12);
    expect(toVerdict(state)).toMatchObject({
      outcome: "failed",
      message: "deployment payments cannot reach healthy: Deployment payments/api: failed: ImagePullBackOff: 0/2 replicas ready, 2 updated; pod api-7f9c-x2 container api: ImagePullBackOff",
      decidedAt: "2026-11-29T10:00:12.000Z",
    });
  });
});

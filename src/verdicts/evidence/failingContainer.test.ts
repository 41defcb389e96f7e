// Which container's log a failed observation reads, on objects as a cluster writes them: the
// captured corpus (kwok playing the kubelet) where it has the state, the kubelet-shaped builders of
// test/fixtures/kube where it does not (init containers, a Deployment's old and new pods).
import { describe, expect, it } from "vitest";
import { captured } from "../../../test/fixtures/kube/captured.js";
import { pod, running, terminated, waiting } from "../../../test/fixtures/kube/pods.js";
import { deployment, job, jobConditions, replicaSet } from "../../../test/fixtures/kube/workloads.js";
import type { DaemonSet, Job, KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import { failingContainer, type LogChoice } from "./failingContainer.js";
import type { OwnedObjects } from "../rules/input.js";
import type { Failure } from "../contract/schemas.js";

const crashed = { exitCode: 1, reason: "Error", startedAt: "2026-11-29T10:00:31Z", finishedAt: "2026-11-29T10:00:32Z" };

const currentApi = deployment({ name: "api", revision: "3", replicas: 2 });
const currentRs = replicaSet(currentApi, { name: "api-7f9c6d8b5", revision: "3", replicas: 2 });
const oldRs = replicaSet(currentApi, { name: "api-5d4c3b2a1", revision: "2", replicas: 0, uid: "old-rs-uid" });

const migrateJob = job({ name: "schema-migrate", status: { failed: 1, conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") } });

interface Case {
  name: string;
  reason: string;
  object: KubeObject | undefined;
  owned?: Partial<OwnedObjects>;
  expected: LogChoice | undefined;
}

const cases: Case[] = [
  {
    name: "captured: a failed Job's pod, container terminated with exit code 1, reason Error",
    reason: "BackoffLimitExceeded",
    object: captured<Job>("job-failed"),
    owned: { pods: [captured<Pod>("pod-failed")] },
    expected: { read: { namespace: captured<Pod>("pod-failed").metadata.namespace!, pod: "seed-7s579", container: "seed", init: false, previous: false } },
  },
  {
    name: "captured: a DaemonSet's pod in CrashLoopBackOff with lastState.terminated reads the previous instance",
    reason: "CrashLoopBackOff",
    object: captured<DaemonSet>("daemonset-crashloopbackoff"),
    owned: { pods: [captured<Pod>("pod-crashloopbackoff")] },
    expected: { read: { namespace: captured<Pod>("pod-crashloopbackoff").metadata.namespace!, pod: "shipper-cjc4h", container: "shipper", init: false, previous: true } },
  },
  {
    name: "captured: a bare ReplicaSet's pod in ImagePullBackOff never ran: a note, no read",
    reason: "ImagePullBackOff",
    object: captured<ReplicaSet>("replicaset-imagepullbackoff"),
    owned: { pods: [captured<Pod>("pod-of-replicaset-imagepullbackoff")] },
    expected: { note: "no log: pod broker-cswg7 container broker has not run (ImagePullBackOff)" },
  },
  {
    name: "the last of several failed Job pods, by the time its container finished",
    reason: "BackoffLimitExceeded",
    object: migrateJob,
    owned: {
      pods: [
        pod({ name: "schema-migrate-b7k2p", owner: migrateJob, phase: "Failed", containers: [terminated("migrate", { exitCode: 1, reason: "Error", finishedAt: "2026-11-29T10:02:10Z" })] }),
        pod({ name: "schema-migrate-8q2lw", owner: migrateJob, phase: "Failed", containers: [terminated("migrate", { exitCode: 2, reason: "Error", finishedAt: "2026-11-29T10:04:40Z" })] }),
        pod({ name: "schema-migrate-x9d4f", owner: migrateJob, phase: "Failed", containers: [terminated("migrate", { exitCode: 1, reason: "Error", finishedAt: "2026-11-29T10:03:05Z" })] }),
      ],
    },
    expected: { read: { namespace: "payments", pod: "schema-migrate-8q2lw", container: "migrate", init: false, previous: false } },
  },
  {
    name: "a Job pod whose init container exited non-zero (restartPolicy Never): the init container, not the app container waiting PodInitializing",
    reason: "BackoffLimitExceeded",
    object: migrateJob,
    owned: {
      pods: [
        pod({
          name: "schema-migrate-r4t6y",
          owner: migrateJob,
          phase: "Failed",
          initContainers: [terminated("wait-for-db", { exitCode: 1, reason: "Error", message: "db:5432 unreachable" })],
          containers: [waiting("migrate", "PodInitializing")],
        }),
      ],
    },
    expected: { read: { namespace: "payments", pod: "schema-migrate-r4t6y", container: "wait-for-db", init: true, previous: false } },
  },
  {
    name: "a Deployment's init container crash-looping (restartPolicy Always) reads its previous instance",
    reason: "CrashLoopBackOff",
    object: currentApi,
    owned: {
      replicaSets: [currentRs],
      pods: [
        pod({
          name: "api-7f9c6d8b5-q8w2e",
          owner: currentRs,
          phase: "Pending",
          initContainers: [waiting("migrate", "CrashLoopBackOff", "back-off 40s restarting failed container=migrate", { restartCount: 3, lastTerminated: crashed })],
          containers: [waiting("api", "PodInitializing")],
        }),
      ],
    },
    expected: { read: { namespace: "payments", pod: "api-7f9c6d8b5-q8w2e", container: "migrate", init: true, previous: true } },
  },
  {
    name: "a Deployment reads its current ReplicaSet's crashing pod, never an old one's",
    reason: "CrashLoopBackOff",
    object: currentApi,
    owned: {
      replicaSets: [oldRs, currentRs],
      pods: [
        pod({ name: "api-5d4c3b2a1-aaaaa", owner: oldRs, containers: [waiting("api", "CrashLoopBackOff", "back-off 5m0s", { restartCount: 9, lastTerminated: crashed })] }),
        pod({ name: "api-7f9c6d8b5-zzzzz", owner: currentRs, containers: [waiting("api", "CrashLoopBackOff", "back-off 10s", { restartCount: 1, lastTerminated: crashed })] }),
      ],
    },
    expected: { read: { namespace: "payments", pod: "api-7f9c6d8b5-zzzzz", container: "api", init: false, previous: true } },
  },
  {
    name: "the container in the failure's reason, not a healthy sidecar of the same pod",
    reason: "CrashLoopBackOff",
    object: currentApi,
    owned: {
      replicaSets: [currentRs],
      pods: [
        pod({
          name: "api-7f9c6d8b5-m3n4b",
          owner: currentRs,
          containers: [running("envoy"), waiting("api", "CrashLoopBackOff", "back-off 20s", { restartCount: 2, lastTerminated: crashed })],
        }),
      ],
    },
    expected: { read: { namespace: "payments", pod: "api-7f9c6d8b5-m3n4b", container: "api", init: false, previous: true } },
  },
  {
    name: "an image pull failing after the container ran once (restarted onto a new node) reads the previous instance",
    reason: "ImagePullBackOff",
    object: pod({ name: "worker", containers: [waiting("worker", "ImagePullBackOff", "Back-off pulling image", { restartCount: 1, lastTerminated: { exitCode: 137, reason: "Error" } })] }),
    expected: { read: { namespace: "payments", pod: "worker", container: "worker", init: false, previous: true } },
  },
  {
    name: "CreateContainerConfigError: the container never started",
    reason: "CreateContainerConfigError",
    object: pod({ name: "worker", containers: [waiting("worker", "CreateContainerConfigError", 'secret "db" not found')] }),
    expected: { note: "no log: pod worker container worker has not run (CreateContainerConfigError)" },
  },
  {
    name: "Unschedulable is a pod's, not a container's: nothing to read",
    reason: "Unschedulable",
    object: pod({ name: "worker", phase: "Pending", unschedulable: "0/3 nodes are available: 3 Insufficient cpu." }),
    expected: undefined,
  },
  {
    name: "a Job that failed by its deadline with no failed container",
    reason: "DeadlineExceeded",
    object: job({ name: "slow", status: { failed: 0, conditions: jobConditions.failed("DeadlineExceeded", "Job was active longer than specified deadline") } }),
    owned: { pods: [] },
    expected: undefined,
  },
  {
    name: "a deleted resource (NotFound): no object, nothing to read",
    reason: "NotFound",
    object: undefined,
    expected: undefined,
  },
  {
    name: "a custom resource's condition is not a container's",
    reason: "InstallFailed",
    object: captured("cr-nested-status"),
    expected: undefined,
  },
];

function failureOf(reason: string, object: KubeObject | undefined): Failure {
  const resource = object
    ? { apiVersion: object.apiVersion, kind: object.kind, namespace: object.metadata.namespace, name: object.metadata.name }
    : { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "gone" };
  return { stage: "healthy", resource, reason, message: "" };
}

describe("failingContainer", () => {
  it.each(cases)("$name", ({ reason, object, owned, expected }) => {
    const objects: OwnedObjects = { replicaSets: owned?.replicaSets ?? [], pods: owned?.pods ?? [] };
    expect(failingContainer(failureOf(reason, object), object, objects)).toEqual(expected);
  });
});

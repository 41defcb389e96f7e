import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../kube/objects.js";
import { readsTheSame, stripObject, type StripTarget } from "./strip.js";

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;

const target = (apiVersion: string, kind: string, kindKey: string, metadataOnly = false): StripTarget => ({
  apiVersion,
  kind,
  kindKey,
  metadataOnly,
});

const secretItem = (fixture("secret-metadata-list.json").items as unknown[])[0];

const cases: { name: string; raw: unknown; target: StripTarget; expected: unknown }[] = [
  {
    name: "running pod keeps identity, owner, container names, Ready and PodScheduled, container states; drops managedFields, spec, labels, annotations",
    raw: fixture("pod-running.json"),
    target: target("v1", "Pod", "core/Pod"),
    expected: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "api-7f9c6d5b8-x2kqv",
        namespace: "payments",
        uid: "d2a7c6e1-3b5f-4a90-8e1d-7c6b5a4f3e2d",
        resourceVersion: "184467",
        generation: 1,
        creationTimestamp: "2026-11-28T09:14:03Z",
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "api-7f9c6d5b8", uid: "4b0e5c1d-9f3a-4d8e-b2c7-6a1f0e9d8c7b", controller: true },
        ],
      },
      spec: { containers: [{ name: "api" }] },
      status: {
        phase: "Running",
        conditions: [
          { type: "Ready", status: "True", observedGeneration: 1 },
          { type: "PodScheduled", status: "True", observedGeneration: 1 },
        ],
        containerStatuses: [
          {
            name: "api",
            ready: true,
            imageID: "registry.example.com/payments/api@sha256:5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d",
            restartCount: 0,
            started: true,
            state: { running: {} },
          },
        ],
      },
    },
  },
  {
    name: "pod in ImagePullBackOff keeps the waiting reason and message, when Ready turned False, and the init container's termination",
    raw: fixture("pod-imagepullbackoff.json"),
    target: target("v1", "Pod", "core/Pod"),
    expected: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "web-5d8b9c7f6-q7wzt",
        namespace: "shop",
        uid: "6e5d4c3b-2a1f-4e0d-9c8b-7a6f5e4d3c2b",
        resourceVersion: "190233",
        creationTimestamp: "2026-11-28T09:20:41Z",
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-5d8b9c7f6", uid: "0d1c2b3a-4f5e-4d6c-8b7a-9f8e7d6c5b4a", controller: true },
        ],
      },
      spec: { containers: [{ name: "web" }], initContainers: [{ name: "wait-for-db" }] },
      status: {
        phase: "Pending",
        conditions: [
          {
            type: "Ready",
            status: "False",
            reason: "ContainersNotReady",
            message: "containers with unready status: [web]",
            lastTransitionTime: "2026-11-28T09:20:41Z",
          },
        ],
        initContainerStatuses: [
          {
            name: "wait-for-db",
            ready: true,
            imageID: "docker.io/library/busybox@sha256:aaaa",
            restartCount: 0,
            started: false,
            state: { terminated: { exitCode: 0, reason: "Completed", finishedAt: "2026-11-28T09:20:44Z" } },
          },
        ],
        containerStatuses: [
          {
            name: "web",
            ready: false,
            restartCount: 0,
            started: false,
            state: {
              waiting: {
                reason: "ImagePullBackOff",
                message:
                  'Back-off pulling image "registry.example.com/shop/web:does-not-exist": ErrImagePull: rpc error: code = NotFound desc = failed to pull and unpack image',
              },
            },
          },
        ],
      },
    },
  },
  {
    name: "deployment keeps the revision annotation and stagewatch.io labels, drops last-applied and the template",
    raw: fixture("deployment.json"),
    target: target("apps/v1", "Deployment", "apps/Deployment"),
    expected: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: {
        name: "api",
        namespace: "payments",
        uid: "8c2f4a6e-1d3b-4f5a-9e7c-0b2d4f6a8c1e",
        resourceVersion: "184502",
        generation: 7,
        creationTimestamp: "2026-11-20T14:02:11Z",
        labels: { "stagewatch.io/deployment": "payments" },
        annotations: { "deployment.kubernetes.io/revision": "3" },
      },
      spec: { replicas: 2, progressDeadlineSeconds: 600 },
      status: {
        observedGeneration: 7,
        replicas: 3,
        updatedReplicas: 2,
        readyReplicas: 1,
        availableReplicas: 1,
        unavailableReplicas: 2,
        terminatingReplicas: 0,
        conditions: [
          {
            type: "Available",
            status: "True",
            reason: "MinimumReplicasAvailable",
            message: "Deployment has minimum availability.",
          },
          {
            type: "Progressing",
            status: "True",
            reason: "ReplicaSetUpdated",
            message: 'ReplicaSet "api-7f9c6d5b8" is progressing.',
          },
        ],
      },
    },
  },
  {
    name: "failed job keeps the bootstrap label, its failure conditions and counts",
    raw: fixture("job-failed.json"),
    target: target("batch/v1", "Job", "batch/Job"),
    expected: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: "schema-migrate",
        namespace: "payments",
        uid: "5f8e7d6c-4b3a-4291-8f0e-1d2c3b4a5f6e",
        resourceVersion: "184611",
        generation: 1,
        creationTimestamp: "2026-11-28T09:13:59Z",
        labels: { "stagewatch.io/bootstrap": "true" },
      },
      spec: { suspend: false, completions: 1, parallelism: 1, backoffLimit: 2, ttlSecondsAfterFinished: 600 },
      status: {
        failed: 3,
        ready: 0,
        terminating: 0,
        startTime: "2026-11-28T09:13:59Z",
        conditions: [
          {
            type: "FailureTarget",
            status: "True",
            reason: "BackoffLimitExceeded",
            message: "Job has reached the specified backoff limit",
          },
          {
            type: "Failed",
            status: "True",
            reason: "BackoffLimitExceeded",
            message: "Job has reached the specified backoff limit",
          },
        ],
      },
    },
  },
  {
    name: "job that met its completions keeps the pods the controller has not counted yet",
    raw: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "schema-migrate", namespace: "payments", uid: "0c9d7e21-5b6a-4f38-9e1d-2a3b4c5d6e7f", resourceVersion: "1042", generation: 1 },
      spec: { backoffLimit: 0, completions: 1, parallelism: 1, completionMode: "NonIndexed", suspend: false },
      status: {
        conditions: [
          {
            type: "SuccessCriteriaMet",
            status: "True",
            lastProbeTime: "2026-11-29T07:13:39Z",
            reason: "CompletionsReached",
            message: "Reached expected number of succeeded pods",
          },
        ],
        startTime: "2026-11-29T07:13:38Z",
        terminating: 0,
        uncountedTerminatedPods: { succeeded: ["3396c259-d416-4cba-a43e-44414442d0ce"] },
        ready: 0,
      },
    },
    target: target("batch/v1", "Job", "batch/Job"),
    expected: {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "schema-migrate", namespace: "payments", uid: "0c9d7e21-5b6a-4f38-9e1d-2a3b4c5d6e7f", resourceVersion: "1042", generation: 1 },
      spec: { suspend: false, completions: 1, parallelism: 1, backoffLimit: 0 },
      status: {
        ready: 0,
        terminating: 0,
        startTime: "2026-11-29T07:13:38Z",
        conditions: [
          {
            type: "SuccessCriteriaMet",
            status: "True",
            reason: "CompletionsReached",
            message: "Reached expected number of succeeded pods",
          },
        ],
        uncountedTerminatedPods: { succeeded: ["3396c259-d416-4cba-a43e-44414442d0ce"] },
      },
    },
  },
  {
    name: "custom resource keeps conditions and status scalars, empties nested status, drops spec",
    raw: fixture("widget.json"),
    target: target("example.com/v1", "Widget", "example.com/Widget"),
    expected: {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: {
        name: "blue",
        namespace: "shop",
        uid: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        resourceVersion: "201117",
        generation: 4,
        creationTimestamp: "2026-11-28T09:30:00Z",
      },
      status: {
        observedGeneration: 4,
        phase: "Ready",
        readyReplicas: 3,
        inventory: [],
        history: {},
        conditions: [
          { type: "Ready", status: "True", reason: "Reconciled", message: "3/3 parts ready", observedGeneration: 4 },
          { type: "Reconciling", status: "False", reason: "Idle", message: "", observedGeneration: 4, lastTransitionTime: "2026-11-28T09:31:10Z" },
        ],
      },
    },
  },
  {
    name: "PartialObjectMetadata of a Secret becomes a Secret with metadata only",
    raw: secretItem,
    target: target("v1", "Secret", "core/Secret", true),
    expected: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: {
        name: "payments-db",
        namespace: "payments",
        uid: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
        resourceVersion: "180001",
        creationTimestamp: "2026-11-20T14:01:50Z",
      },
    },
  },
  {
    name: "a full Secret read as metadata-only loses its data even if the server sent it",
    raw: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "payments-db", namespace: "payments", uid: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", resourceVersion: "180001" },
      type: "Opaque",
      data: { url: "cG9zdGdyZXM6Ly91c2VyOmh1bnRlcjJAZGIvcGF5bWVudHM=" },
    },
    target: target("v1", "Secret", "core/Secret", true),
    expected: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "payments-db", namespace: "payments", uid: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f", resourceVersion: "180001" },
    },
  },
  {
    name: "cluster-scoped object without status keeps metadata alone",
    raw: { apiVersion: "v1", kind: "Namespace", metadata: { name: "payments", uid: "0f1e2d3c-4b5a-4697-8877-665544332211", resourceVersion: "12" } },
    target: target("v1", "Namespace", "core/Namespace"),
    expected: {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "payments", uid: "0f1e2d3c-4b5a-4697-8877-665544332211", resourceVersion: "12" },
    },
  },
  {
    name: "an object without a uid is not an object of the collection",
    raw: { metadata: { name: "ghost", namespace: "payments" } },
    target: target("v1", "Pod", "core/Pod"),
    expected: undefined,
  },
];

describe("stripObject", () => {
  it.each(cases)("$name", ({ raw, target, expected }) => {
    expect(stripObject(raw, target)).toStrictEqual(expected);
  });

  it("keeps a running pod under a fifth of its JSON size", () => {
    const raw = fixture("pod-running.json");
    const stripped = stripObject(raw, target("v1", "Pod", "core/Pod"));
    expect(JSON.stringify(stripped).length).toBeLessThan(JSON.stringify(raw).length / 5);
  });

  it("keeps the claims a pod mounts and the node of a pod that failed there, not a running pod's node", () => {
    const raw = structuredClone(fixture("pod-running.json")) as { spec: Record<string, unknown>; status: Record<string, unknown> };
    const volumes = [{ name: "data", persistentVolumeClaim: { claimName: "data-api-0" } }, { name: "kube-api-access-7x2qd", projected: { defaultMode: 420, sources: [] } }];
    raw.spec = { ...raw.spec, nodeName: "worker-2", volumes };
    const running = stripObject(raw, target("v1", "Pod", "core/Pod"))!;
    expect(running.spec).toMatchObject({ volumes: [{ persistentVolumeClaim: { claimName: "data-api-0" } }] });
    expect(running.spec?.nodeName).toBeUndefined();
    const evicted = { ...raw, status: { phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91432Ki." } };
    expect(stripObject(evicted, target("v1", "Pod", "core/Pod"))!.spec).toMatchObject({ nodeName: "worker-2" });
  });

  it("holds the equal parts of two pods once, frozen, and keeps what differs their own", () => {
    const first = fixture("pod-running.json");
    const second = structuredClone(first) as { metadata: Record<string, unknown> };
    Object.assign(second.metadata, { name: "api-7f9c6d5b8-w8tqz", uid: "d2a7c6e1-3b5f-4a90-8e1d-000000000002" });
    const a = stripObject(first, target("v1", "Pod", "core/Pod"))!;
    const b = stripObject(second, target("v1", "Pod", "core/Pod"))!;
    expect(b.metadata.name).toBe("api-7f9c6d5b8-w8tqz");
    expect(b.status).toBe(a.status);
    expect(b.spec).toBe(a.spec);
    expect(b.metadata.ownerReferences).toBe(a.metadata.ownerReferences);
    expect(Object.isFrozen(a.status)).toBe(true);
    expect(Object.isFrozen(a.metadata.ownerReferences?.[0])).toBe(true);
    expect(Object.isFrozen(a.metadata)).toBe(false);
  });

  it("keeps a workload's status its own, so a rollout's many statuses leave the pods' sharing alone", () => {
    const running = fixture("pod-running.json");
    const before = stripObject(structuredClone(running), target("v1", "Pod", "core/Pod"))!;
    const deployment = fixture("deployment.json") as { metadata: Record<string, unknown>; status: Record<string, unknown> };
    // 1,000 Deployments stepping through 20 ready counts each: more distinct statuses than the table holds.
    let last: KubeObject | undefined;
    for (let d = 0; d < 1_000; d++) {
      for (let ready = 0; ready < 20; ready++) {
        // As the controller writes it: the Progressing condition names the Deployment's ReplicaSet.
        const progressing = { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `ReplicaSet "app-${d}-7f9c6d5b8" is progressing.` };
        const status = { ...deployment.status, readyReplicas: ready, availableReplicas: ready, conditions: [progressing] };
        const step = { ...deployment, metadata: { ...deployment.metadata, name: `app-${d}`, uid: `uid-${d}` }, status };
        last = stripObject(step, target("apps/v1", "Deployment", "apps/Deployment"));
      }
    }
    expect(last?.status).toMatchObject({ readyReplicas: 19, availableReplicas: 19 });
    const after = stripObject(structuredClone(running), target("v1", "Pod", "core/Pod"))!;
    expect(after.status).toBe(before.status);
    expect(after.metadata.ownerReferences).toBe(before.metadata.ownerReferences);
  });
});

describe("cluster prose in the cache", () => {
  const huge = (head: string) => `${head}${"x".repeat(900 * 1024)}`;

  it("holds a custom resource's 900 KiB reason, message and status string as their first 256, 4,096 and 4,096 characters", () => {
    const raw = {
      apiVersion: "widgets.example.io/v1",
      kind: "Widget",
      metadata: { name: "w", namespace: "team-b", uid: "7a1f0c4e-5b2d-4e8f-9a63-0c1d2e3f4a5b", resourceVersion: "9001", generation: 3 },
      status: {
        observedGeneration: 3,
        phase: huge("Pending"),
        conditions: [{ type: "Ready", status: "False", reason: huge("Failing"), message: huge("round 29: "), lastTransitionTime: "2026-12-03T10:00:00Z" }],
      },
    };
    const stripped = stripObject(raw, target("widgets.example.io/v1", "Widget", "widgets.example.io/Widget"))!;
    const status = stripped.status as unknown as { phase: string; conditions: { reason: string; message: string }[] };
    expect(status.conditions[0]!.reason).toHaveLength(256);
    expect(status.conditions[0]!.message).toHaveLength(4096);
    expect(status.conditions[0]!.message.startsWith("round 29: ")).toBe(true);
    expect(status.phase).toHaveLength(4096);
    expect(JSON.stringify(stripped).length).toBeLessThan(9 * 1024);
  });

  it("holds a pod's waiting and terminated reasons and messages cut, the Job's kubelet texts too", () => {
    const raw = structuredClone(fixture("pod-running.json")) as { status: { containerStatuses: Record<string, unknown>[] } };
    raw.status.containerStatuses[0]!.state = { waiting: { reason: huge("CrashLoopBackOff"), message: huge("back-off 5m0s") } };
    raw.status.containerStatuses[0]!.lastState = { terminated: { exitCode: 1, reason: huge("Error"), message: huge("panic: "), finishedAt: "2026-12-03T10:00:00Z" } };
    const stripped = stripObject(raw, target("v1", "Pod", "core/Pod"))!;
    const [container] = (stripped.status as unknown as { containerStatuses: { state: { waiting: { reason: string; message: string } }; lastState: { terminated: { reason: string; message: string } } }[] }).containerStatuses;
    expect(container!.state.waiting.reason).toHaveLength(256);
    expect(container!.state.waiting.message).toHaveLength(4096);
    expect(container!.lastState.terminated.reason).toHaveLength(256);
    expect(container!.lastState.terminated.message).toHaveLength(4096);
  });
});

describe("readsTheSame", () => {
  const pod: StripTarget = { apiVersion: "v1", kind: "Pod", kindKey: "core/Pod", metadataOnly: false };
  const running = fixture("pod-running.json") as { metadata: Record<string, unknown>; status: { containerStatuses: Record<string, unknown>[] } };
  const strip = (raw: unknown) => stripObject(structuredClone(raw), pod)!;
  const first = strip(running);

  it("holds for the same pod parsed again at another resourceVersion: its parts are shared", () => {
    const resent = strip({ ...running, metadata: { ...running.metadata, resourceVersion: "999999", managedFields: [] } });
    expect(resent).not.toBe(first);
    expect(readsTheSame(first, resent)).toBe(true);
  });

  it("fails for a change a rule reads: a restart, a deletion under way", () => {
    const restarted = structuredClone(running);
    restarted.status.containerStatuses[0]!.restartCount = 1;
    expect(readsTheSame(first, strip(restarted))).toBe(false);
    const terminating = { ...running, metadata: { ...running.metadata, deletionTimestamp: "2026-11-29T10:05:00Z" } };
    expect(readsTheSame(first, strip(terminating))).toBe(false);
  });
});

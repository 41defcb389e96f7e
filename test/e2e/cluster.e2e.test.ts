/**
 * Proves the e2e harness is the real thing: real controllers write ownerReferences and status,
 * kwok plays the kubelet (including the faults stagewatch must recognise), watches deliver events,
 * and the NATS server speaks JetStream.
 */
import {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  makeInformer,
  type KubernetesObject,
  type V1Deployment,
  type V1Job,
  type V1Pod,
} from "@kubernetes/client-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createNamespace,
  deleteNamespace,
  eventually,
  FAULT_LABEL,
  Fault,
  kubeConfig,
  natsUrl,
  TERMINATION_MESSAGE_ANNOTATION,
} from "./support/cluster.ts";

const kc = kubeConfig();
const core = kc.makeApiClient(CoreV1Api);
const apps = kc.makeApiClient(AppsV1Api);
const batch = kc.makeApiClient(BatchV1Api);

function deployment(name: string, replicas: number, image: string): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image }] },
      },
    },
  };
}

function job(name: string, spec: { labels?: Record<string, string>; annotations?: Record<string, string>; ttl?: number }): V1Job {
  return {
    metadata: { name },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: spec.ttl,
      template: {
        metadata: { labels: spec.labels, annotations: spec.annotations },
        spec: { restartPolicy: "Never", containers: [{ name: "task", image: "busybox:1.36" }] },
      },
    },
  };
}

function controllerOf(obj: KubernetesObject) {
  return obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

const condition = (obj: { status?: { conditions?: { type: string; status: string; reason?: string }[] } }, type: string) =>
  obj.status?.conditions?.find((c) => c.type === type);

async function podsOf(namespace: string, ownerUid: string): Promise<V1Pod[]> {
  const pods = await core.listNamespacedPod({ namespace });
  return pods.items.filter((pod) => controllerOf(pod)?.uid === ownerUid);
}

describe("workload controllers and kwok", () => {
  let namespace: string;
  beforeAll(async () => {
    namespace = await createNamespace("workloads");
  });
  afterAll(async () => {
    await deleteNamespace(namespace);
  });

  it("runs a Deployment of 3 replicas through a ReplicaSet to 3 available pods", async () => {
    const created = await apps.createNamespacedDeployment({ namespace, body: deployment("web", 3, "nginx:1.27") });

    const available = await eventually("web available", async () => {
      const d = await apps.readNamespacedDeployment({ name: "web", namespace });
      return d.status?.availableReplicas === 3 && d.status.observedGeneration === d.metadata?.generation ? d : undefined;
    });
    expect(available.status?.readyReplicas).toBe(3);

    const replicaSets = (await apps.listNamespacedReplicaSet({ namespace })).items.filter(
      (rs) => controllerOf(rs)?.uid === created.metadata?.uid,
    );
    expect(replicaSets).toHaveLength(1);
    const rs = replicaSets[0]!;
    expect(controllerOf(rs)).toMatchObject({ kind: "Deployment", name: "web" });

    const pods = await podsOf(namespace, rs.metadata!.uid!);
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(controllerOf(pod)).toMatchObject({ kind: "ReplicaSet", name: rs.metadata?.name });
      expect(pod.spec?.nodeName).toMatch(/^kwok-node-/);
      expect(pod.status?.phase).toBe("Running");
      expect(condition(pod, "Ready")?.status).toBe("True");
    }
  });

  it("rolls the Deployment out to a new image through a second ReplicaSet and removes the old pods", async () => {
    const before = await apps.readNamespacedDeployment({ name: "web", namespace });
    const oldReplicaSets = (await apps.listNamespacedReplicaSet({ namespace })).items;
    expect(oldReplicaSets).toHaveLength(1);
    const oldRs = oldReplicaSets[0]!;

    before.spec!.template.spec!.containers[0]!.image = "nginx:1.28";
    await apps.replaceNamespacedDeployment({ name: "web", namespace, body: before });

    const rolledOut = await eventually("web rolled out", async () => {
      const d = await apps.readNamespacedDeployment({ name: "web", namespace });
      const s = d.status;
      const done =
        s?.observedGeneration === d.metadata?.generation &&
        s?.updatedReplicas === 3 &&
        s?.availableReplicas === 3 &&
        s?.replicas === 3;
      return done ? d : undefined;
    });
    expect(rolledOut.metadata?.annotations?.["deployment.kubernetes.io/revision"]).toBe("2");

    const replicaSets = (await apps.listNamespacedReplicaSet({ namespace })).items;
    expect(replicaSets).toHaveLength(2);
    const newRs = replicaSets.find((rs) => rs.metadata?.uid !== oldRs.metadata?.uid)!;
    expect(newRs.spec?.template?.spec?.containers[0]?.image).toBe("nginx:1.28");
    expect(controllerOf(newRs)?.uid).toBe(rolledOut.metadata?.uid);

    await eventually("old pods gone", async () =>
      (await podsOf(namespace, oldRs.metadata!.uid!)).length === 0 ? true : undefined,
    );
    const newPods = await podsOf(namespace, newRs.metadata!.uid!);
    expect(newPods).toHaveLength(3);
    expect(newPods.every((pod) => pod.spec?.containers[0]?.image === "nginx:1.28")).toBe(true);
  });

  it("fails a Job with backoffLimit 0 whose pod exits non-zero, keeping the termination message", async () => {
    const message = "migration 0042 failed: relation \"users\" already exists";
    const created = await batch.createNamespacedJob({
      namespace,
      body: job("migrate", {
        labels: { [FAULT_LABEL]: Fault.Error },
        annotations: { [TERMINATION_MESSAGE_ANNOTATION]: message },
      }),
    });

    const failed = await eventually("migrate failed", async () => {
      const j = await batch.readNamespacedJob({ name: "migrate", namespace });
      return condition(j, "Failed")?.status === "True" ? j : undefined;
    });
    expect(condition(failed, "Failed")?.reason).toBe("BackoffLimitExceeded");
    expect(condition(failed, "Complete")).toBeUndefined();

    const pods = await podsOf(namespace, created.metadata!.uid!);
    expect(pods).toHaveLength(1);
    const pod = pods[0]!;
    expect(pod.status?.phase).toBe("Failed");
    const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
    expect(terminated).toMatchObject({ exitCode: 1, reason: "Error", message });
  });

  it("completes a Job with ttlSecondsAfterFinished 0 and then deletes it", async () => {
    const seen: { type: string; complete: boolean }[] = [];
    const informer = makeInformer<V1Job>(kc, `/apis/batch/v1/namespaces/${namespace}/jobs`, () =>
      batch.listNamespacedJob({ namespace }),
    );
    const record = (type: string) => (j: V1Job) => {
      if (j.metadata?.name === "short") seen.push({ type, complete: condition(j, "Complete")?.status === "True" });
    };
    informer.on("add", record("add"));
    informer.on("update", record("update"));
    informer.on("delete", record("delete"));
    await informer.start();
    try {
      await batch.createNamespacedJob({ namespace, body: job("short", { ttl: 0 }) });
      await eventually("short deleted", async () => (seen.some((e) => e.type === "delete") ? true : undefined));
      expect(seen[0]?.type).toBe("add");
      // The TTL controller deletes only finished Jobs, so the last state seen was Complete.
      expect(seen.filter((e) => e.type !== "delete").at(-1)?.complete).toBe(true);
      await expect(batch.readNamespacedJob({ name: "short", namespace })).rejects.toMatchObject({ code: 404 });
    } finally {
      await informer.stop();
    }
  });
});

describe("kwok faults", () => {
  let namespace: string;
  beforeAll(async () => {
    namespace = await createNamespace("faults");
  });
  afterAll(async () => {
    await deleteNamespace(namespace);
  });

  const podWithFault = (name: string, fault: Fault): V1Pod => ({
    metadata: { name, labels: { [FAULT_LABEL]: fault } },
    spec: { containers: [{ name: "app", image: "registry.example/app:missing" }] },
  });

  it.each([
    { fault: Fault.ImagePullBackOff, phase: "Pending", waiting: "ImagePullBackOff" },
    { fault: Fault.InvalidImageName, phase: "Pending", waiting: "InvalidImageName" },
    { fault: Fault.CrashLoopBackOff, phase: "Running", waiting: "CrashLoopBackOff" },
  ])("shows the $fault fault as the container's waiting reason", async ({ fault, phase, waiting }) => {
    const name = fault.toLowerCase();
    await core.createNamespacedPod({ namespace, body: podWithFault(name, fault) });
    const pod = await eventually(`${name} waiting`, async () => {
      const p = await core.readNamespacedPod({ name, namespace });
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === waiting ? p : undefined;
    });
    expect(pod.status?.phase).toBe(phase);
    expect(condition(pod, "Ready")?.status).toBe("False");
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.message).toContain(
      fault === Fault.CrashLoopBackOff ? "back-off" : "registry.example/app:missing",
    );
  });

  it("keeps a NeverReady pod running but not ready", async () => {
    await core.createNamespacedPod({ namespace, body: podWithFault("never-ready", Fault.NeverReady) });
    const pod = await eventually("never-ready running", async () => {
      const p = await core.readNamespacedPod({ name: "never-ready", namespace });
      return p.status?.phase === "Running" ? p : undefined;
    });
    expect(condition(pod, "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: false, state: { running: {} } });
  });
});

describe("informer", () => {
  let namespace: string;
  beforeAll(async () => {
    namespace = await createNamespace("informer");
  });
  afterAll(async () => {
    await deleteNamespace(namespace);
  });

  it("lists existing objects, then receives add, update and delete events from the watch", async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment("listed", 1, "nginx:1.27") });
    await eventually("listed available", async () => {
      const d = await apps.readNamespacedDeployment({ name: "listed", namespace });
      return d.status?.availableReplicas === 1 ? d : undefined;
    });

    const events: { type: string; name: string; ready: boolean }[] = [];
    const informer = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () =>
      core.listNamespacedPod({ namespace }),
    );
    const record = (type: string) => (pod: V1Pod) =>
      events.push({ type, name: pod.metadata?.name ?? "", ready: condition(pod, "Ready")?.status === "True" });
    informer.on("add", record("add"));
    informer.on("update", record("update"));
    informer.on("delete", record("delete"));
    await informer.start();
    try {
      const listed = informer.list(namespace);
      expect(listed).toHaveLength(1);
      expect(controllerOf(listed[0]!)?.kind).toBe("ReplicaSet");

      await core.createNamespacedPod({
        namespace,
        body: { metadata: { name: "watched" }, spec: { containers: [{ name: "app", image: "nginx:1.27" }] } },
      });
      await eventually("watched ready via watch", async () =>
        events.some((e) => e.type === "update" && e.name === "watched" && e.ready) ? true : undefined,
      );
      expect(events.find((e) => e.name === "watched")?.type).toBe("add");

      await core.deleteNamespacedPod({ name: "watched", namespace });
      await eventually("watched deleted via watch", async () =>
        events.some((e) => e.type === "delete" && e.name === "watched") ? true : undefined,
      );
      expect(informer.get("watched", namespace)).toBeUndefined();
      expect(informer.list(namespace)).toHaveLength(1);
    } finally {
      await informer.stop();
    }
  });
});

describe("NATS JetStream", () => {
  it("creates a stream and a KV bucket, writes to them and reads the values back", async () => {
    const nc = await connect({ servers: natsUrl() });
    try {
      const suffix = Math.random().toString(36).slice(2, 8);
      const stream = `E2E_${suffix}`;
      const jsm = await jetstreamManager(nc);
      await jsm.streams.add({ name: stream, subjects: [`e2e.${suffix}.>`] });
      const ack = await jetstream(nc).publish(`e2e.${suffix}.verdict`, JSON.stringify({ reached: "healthy" }));
      expect(ack.stream).toBe(stream);
      const stored = await jsm.streams.getMessage(stream, { seq: ack.seq });
      expect(stored?.json()).toEqual({ reached: "healthy" });

      const kv = await new Kvm(nc).create(`e2e_${suffix}`);
      await kv.put("observation.42", "pending");
      await kv.put("observation.42", "healthy");
      const entry = await kv.get("observation.42");
      expect(entry?.string()).toBe("healthy");
      expect(entry?.revision).toBe(2);

      await jsm.streams.delete(stream);
      await kv.destroy();
    } finally {
      await nc.close();
    }
  });
});

/**
 * Custom resources judged by the health library, with no health check configured: three CRDs of
 * kinds the library covers (an Argo Rollout, a Gateway API Gateway, a Crossplane managed resource
 * in a provider group of its own), installed on the real API server, their objects applied, and
 * their status written through `/status` the way their controllers write it (none of those
 * controllers runs here). The verdicts follow what the library reads, including nested status the
 * generic cache would empty and a failure that cannot clear without a new apply, failing at once.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceIdentity } from "../../src/verdicts/contract/schemas.js";
import { kubeJson } from "../cluster/kubeJson.ts";
import { ApiException, ApiextensionsV1Api } from "@kubernetes/client-node";
import { createNamespace, deleteNamespace, eventually, kubeConfig } from "./support/cluster.js";
import { customResourceDefinition, installKind, removeKind, type TestKind } from "./support/crds.js";
import type { Manifest } from "./support/manifests.js";
import { apply, nextReading, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const suffix = randomBytes(3).toString("hex");
let stagewatch: StagewatchUnderTest;
let namespace: string;
const kinds: TestKind[] = [];
let rollouts: TestKind;
let gateways: TestKind;
let buckets: TestKind;

beforeAll(async () => {
  [stagewatch, namespace] = await Promise.all([startStagewatch({ name: "customresources" }), createNamespace("custom-resources")]);
  // The library keys on group and kind: the real groups, but a provider group of this run's own
  // for the Crossplane-like kind (every group ending in .crossplane.io takes the Crossplane entry).
  rollouts = await installKind("argoproj.io", "Rollout", "rollouts");
  gateways = await installApprovedKind("gateway.networking.k8s.io", "Gateway", "gateways");
  buckets = await installKind(`s3${suffix}.aws.crossplane.io`, "Bucket", "buckets");
  kinds.push(rollouts, gateways, buckets);
});

afterAll(async () => {
  await stagewatch?.stop();
  for (const kind of kinds) await removeKind(kind);
  if (namespace) await deleteNamespace(namespace);
});

/**
 * A kind of a `*.k8s.io` group: the API server takes its CRD only with the approval annotation
 * the project's own CRDs carry (Gateway API's name its review), otherwise as installKind does.
 */
async function installApprovedKind(group: string, kind: string, plural: string): Promise<TestKind> {
  const crds = kc.makeApiClient(ApiextensionsV1Api);
  const body = customResourceDefinition(group, kind, plural);
  body.metadata!.annotations = { "api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/2466" };
  await crds.createCustomResourceDefinition({ body }).catch((error: unknown) => {
    if (!(error instanceof ApiException && error.code === 409)) throw error;
  });
  await eventually(`${body.metadata!.name} established`, async () => {
    const crd = await crds.readCustomResourceDefinition({ name: body.metadata!.name! });
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? crd : undefined;
  });
  return { group, kind, plural, crdName: body.metadata!.name!, apiVersion: `${group}/v1` };
}

const identityOf = (manifest: Manifest): ResourceIdentity => ({
  apiVersion: manifest.apiVersion,
  kind: manifest.kind,
  namespace: manifest.metadata.namespace,
  name: manifest.metadata.name,
});

function pathOf(kind: TestKind, name: string): string {
  return `/apis/${kind.apiVersion}/namespaces/${namespace}/${kind.plural}/${name}`;
}

/** What a controller does: read the object, write its status subresource. */
async function writeStatus(kind: TestKind, name: string, status: Record<string, unknown>): Promise<void> {
  const path = pathOf(kind, name);
  await kubeJson(kc, "PUT", `${path}/status`, { ...(await kubeJson(kc, "GET", path)), status });
}

const condition = (type: string, status: string, reason: string, message = "", observedGeneration = 1) => ({
  type,
  status,
  reason,
  message,
  observedGeneration,
  lastTransitionTime: "2026-12-01T10:00:00Z",
});

describe("a chart of a Rollout, a Gateway and a Crossplane bucket", () => {
  it("waits on what each controller says is not done, and reaches healthy once they say it is", async () => {
    const rollout: Manifest = {
      apiVersion: rollouts.apiVersion,
      kind: "Rollout",
      metadata: { name: "web", namespace },
      spec: { replicas: 3, strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }] } } },
    };
    const gateway: Manifest = {
      apiVersion: gateways.apiVersion,
      kind: "Gateway",
      metadata: { name: "public", namespace },
      spec: { gatewayClassName: "example", listeners: [{ name: "https", port: 443, protocol: "HTTPS" }] },
    };
    const bucket: Manifest = { apiVersion: buckets.apiVersion, kind: "Bucket", metadata: { name: "assets", namespace }, spec: { forProvider: { region: "eu-west-1" } } };
    await apply(kc, rollout, gateway, bucket);
    // As their controllers write them mid-way: a canary at its pause step, a Gateway accepted and
    // not programmed yet with a listener waiting, a bucket Ready but whose last change failed.
    await writeStatus(rollouts, "web", {
      observedGeneration: "1",
      phase: "Paused",
      message: "CanaryPauseStep",
      pauseConditions: [{ reason: "CanaryPauseStep", startTime: "2026-12-01T10:00:00Z" }],
      replicas: 3,
      updatedReplicas: 1,
    });
    await writeStatus(gateways, "public", {
      conditions: [condition("Accepted", "True", "Accepted", "Gateway accepted"), condition("Programmed", "False", "Pending", "Waiting for an address")],
      listeners: [{ name: "https", attachedRoutes: 0, supportedKinds: [], conditions: [condition("Programmed", "False", "Pending", "listener is being programmed")] }],
    });
    await writeStatus(buckets, "assets", {
      conditions: [condition("Ready", "True", "Available"), condition("Synced", "False", "ReconcileError", "cannot update bucket: AccessDenied: not authorized to perform s3:PutBucketTagging")],
    });

    const run = await stagewatch.observer.observe(
      observeRequest({ deployment: "custom", timeoutSeconds: 120, resources: [identityOf(rollout), identityOf(gateway), identityOf(bucket)] }),
    );
    const events = run.progress[Symbol.asyncIterator]();
    const readings = new Map<string, { state: string; reason?: string | undefined; message?: string | undefined }>();
    while (readings.size < 3) {
      // The first reading with a reason is the object's (before it, only "not seen in the cluster yet").
      const reading = await nextReading(events, (r) => r.reason !== undefined);
      readings.set(reading.identity.kind, reading);
    }
    expect(readings.get("Rollout")).toMatchObject({ state: "pending", reason: "Paused", message: "CanaryPauseStep" });
    expect(readings.get("Gateway")).toMatchObject({ state: "pending", reason: "Pending", message: "Programmed: Waiting for an address" });
    expect(readings.get("Bucket")).toMatchObject({
      state: "pending",
      reason: "ReconcileError",
      message: "Synced: cannot update bucket: AccessDenied: not authorized to perform s3:PutBucketTagging",
    });

    await writeStatus(rollouts, "web", {
      observedGeneration: "1",
      phase: "Healthy",
      replicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      conditions: [condition("Available", "True", "AvailableReason", "Rollout has minimum availability")],
    });
    await writeStatus(gateways, "public", {
      conditions: [condition("Accepted", "True", "Accepted", "Gateway accepted"), condition("Programmed", "True", "Programmed", "Gateway has been programmed")],
      listeners: [{ name: "https", attachedRoutes: 1, supportedKinds: [], conditions: [condition("Programmed", "True", "Programmed"), condition("ResolvedRefs", "True", "ResolvedRefs")] }],
    });
    await writeStatus(buckets, "assets", { conditions: [condition("Ready", "True", "Available"), condition("Synced", "True", "ReconcileSuccess")] });

    const verdict = await run.verdict;
    await events.return?.();
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    expect(Object.fromEntries(verdict.resources.map((r) => [r.identity.kind, { state: r.state, message: r.message }]))).toEqual({
      Rollout: { state: "settled", message: "Available=True: Rollout has minimum availability" },
      Gateway: { state: "settled", message: "Accepted=True: Gateway accepted" },
      Bucket: { state: "settled", message: "Ready=True" },
    });
  });
});

describe("an aborted Rollout", () => {
  it("fails at once, in the Rollout's own words, while the budget has long to run", async () => {
    const rollout: Manifest = { apiVersion: rollouts.apiVersion, kind: "Rollout", metadata: { name: "doomed", namespace }, spec: { replicas: 2 } };
    await apply(kc, rollout);
    await writeStatus(rollouts, "doomed", {
      observedGeneration: "1",
      phase: "Degraded",
      message: "RolloutAborted: Rollout aborted update to revision 2: metric \"success-rate\" assessed Failed",
      abort: true,
      conditions: [condition("Progressing", "False", "RolloutAborted", "Rollout aborted update to revision 2")],
    });
    const verdict = await stagewatch.observer.observe(observeRequest({ deployment: "aborted", timeoutSeconds: 600, resources: [identityOf(rollout)] })).then((run) => run.verdict);
    expect(verdict).toMatchObject({
      outcome: "failed",
      failure: {
        resource: identityOf(rollout),
        reason: "RolloutAborted",
        message: "RolloutAborted: Rollout aborted update to revision 2: metric \"success-rate\" assessed Failed",
      },
    });
  });
});

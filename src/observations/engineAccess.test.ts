// stagewatch's ServiceAccount refused a list or watch (RBAC, on a scripted API server, virtual
// time): every observation reading through that informer fails at once with the server's reason
// and words instead of timing out, and once access is granted the informer recovers by itself.
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../kube/objects.js";
import { apiObject, uidOf } from "../../test/fixtures/kube/meta.js";
import { pod, running } from "../../test/fixtures/kube/pods.js";
import { deployment, deploymentConditions, job, jobConditions, replicaSet } from "../../test/fixtures/kube/workloads.js";
import { KubeRequestError, builtinMappings, collectionPath, type ResourceMapping } from "../streams/index.js";
import { engineHarness, observationRequest, type EngineHarness } from "./testing/index.js";

const serviceAccount = "system:serviceaccount:stagewatch:stagewatch";
const api = { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 } as const;
const secret = { apiVersion: "v1", kind: "Secret", name: "payments-db" } as const;

function mapping(kindKey: string): ResourceMapping {
  const found = builtinMappings.find((candidate) => candidate.kindKey === kindKey);
  if (!found) throw new Error(`no built-in mapping for ${kindKey}`);
  return found;
}

function secretObject(namespace: string): KubeObject {
  return apiObject<KubeObject>({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "payments-db", namespace, uid: uidOf(`secret/${namespace}/payments-db`), creationTimestamp: "2026-11-29T09:58:12Z" },
    type: "Opaque",
    data: { password: "Y29ycmVjdC1ob3JzZS1iYXR0ZXJ5LXN0YXBsZQ==" },
  });
}

/** RBAC refuses the list of `kindKey` (cluster-wide, or in one namespace) until `grant` is called. */
function refuseList(h: EngineHarness, kindKey: string, namespace?: string): { grant(): void } {
  const refused = mapping(kindKey);
  const path = collectionPath(refused, namespace);
  const group = refused.group;
  const scope = namespace === undefined ? "at the cluster scope" : `in the namespace "${namespace}"`;
  const statusMessage = `${refused.resource} is forbidden: User "${serviceAccount}" cannot list resource "${refused.resource}" in API group "${group}" ${scope}`;
  h.transport.onGet(path, () => {
    throw new KubeRequestError(`GET ${path}: 403 Forbidden: ${statusMessage}`, { status: 403, reason: "Forbidden", statusMessage });
  });
  return { grant: () => h.cluster.serve(refused) };
}

/** A Deployment rolled out, with its ReplicaSet and two ready pods. */
function rolledOut(h: EngineHarness): void {
  const api = deployment({ replicas: 2 });
  const rs = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 2 });
  h.cluster.put(api);
  h.cluster.put(rs);
  h.cluster.put(pod({ name: "api-7f9c6d8b5-x2k8p", owner: rs, containers: [running("api")] }));
  h.cluster.put(pod({ name: "api-7f9c6d8b5-q9v4m", owner: rs, containers: [running("api")] }));
}

describe("a kind stagewatch may not list", () => {
  it("fails a Secret never seen at once, naming it and the server's words; granted later, a new observation succeeds", async () => {
    const h = engineHarness();
    rolledOut(h);
    h.cluster.put(secretObject("payments"));
    const secrets = refuseList(h, "core/Secret");

    const id = await h.start(observationRequest({ resources: [api, secret] }));
    const serverSays = `secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" at the cluster scope`;
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      reached: "none",
      failure: { stage: "applied", resource: { ...secret, namespace: "payments" }, reason: "Forbidden", message: `stagewatch cannot list secrets: ${serverSays}` },
      message: `deployment payments cannot reach applied: Secret payments/payments-db: failed: Forbidden: stagewatch cannot list secrets: ${serverSays}`,
      startedAt: "2026-11-29T10:00:00.000Z",
      decidedAt: "2026-11-29T10:00:00.000Z",
    });
    expect(h.events.verdict(id).resources.map((resource) => `${resource.identity.kind} ${resource.state} ${resource.reason ?? ""}`.trim())).toEqual([
      "Deployment settled",
      "Secret failed Forbidden",
    ]);
    expect(h.engine.activeCount).toBe(0);
    expect((await h.records.getRecord(id))?.record).toMatchObject({ outcome: "failed", verdict: { failure: { reason: "Forbidden" } } });

    // The ClusterRole gains the verb; the informer's next retry (800 ms, no jitter) lists.
    secrets.grant();
    await h.advance(800);
    expect(h.hub.hasSynced()).toBe(true);
    const again = await h.start(observationRequest({ key: "ci-4813/payments", resources: [api, secret] }));
    expect(h.events.verdict(again)).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    // The first verdict stands.
    expect((await h.engine.get(id))?.outcome).toBe("failed");
  });

  it("a refusal that comes after the caches synced fails a pending resource at once, not NotFound after the grace", async () => {
    const h = engineHarness();
    rolledOut(h);
    const id = await h.start(observationRequest({ resources: [api, secret] }));
    await h.advance(3_000);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");

    // The Role lost `watch` on secrets: the API server ends the watch with a 403 Status.
    const message = `secrets is forbidden: User "${serviceAccount}" cannot watch resource "secrets" in API group "" at the cluster scope`;
    h.transport.currentWatch("/api/v1/secrets").status(403, "Forbidden", message);
    await h.advance(0);
    expect(h.events.lines(id).slice(-2)).toEqual(["progress Secret payments/payments-db failed Forbidden", "verdict failed"]);
    expect(h.events.verdict(id)).toMatchObject({
      failure: { stage: "applied", reason: "Forbidden", message: `stagewatch cannot watch secrets: ${message}` },
      decidedAt: "2026-11-29T10:00:03.000Z",
    });
  });

  it("with --namespaces, a refusal in one namespace fails only what is declared there", async () => {
    const h = engineHarness({ namespaces: ["payments", "shop"] });
    h.cluster.put(secretObject("payments"));
    h.cluster.put(secretObject("shop"));
    refuseList(h, "core/Secret", "shop");

    const inPayments = await h.start(observationRequest({ key: "ci-1/payments", resources: [secret] }));
    const inShop = await h.start(observationRequest({ key: "ci-1/shop", defaultNamespace: "shop", resources: [secret] }));
    expect(h.events.verdict(inShop)).toMatchObject({
      outcome: "failed",
      failure: {
        resource: { ...secret, namespace: "shop" },
        reason: "Forbidden",
        message: `stagewatch cannot list secrets in shop: secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" in the namespace "shop"`,
      },
    });
    // The payments namespace was listed: its Secret exists, and that is all a Secret needs.
    expect(h.events.verdict(inPayments)).toMatchObject({ outcome: "succeeded", reached: "healthy" });
  });
});

describe("a workload whose owned objects stagewatch may not list", () => {
  it.each([
    { owned: "core/Pod", resource: "pods" },
    { owned: "apps/ReplicaSet", resource: "replicasets" },
  ])("a Deployment rolling out whose $resource are refused fails at healthy: its rollout can never be read", async ({ owned, resource }) => {
    const h = engineHarness();
    h.cluster.put(
      deployment({
        replicas: 2,
        status: {
          observedGeneration: 7,
          replicas: 2,
          updatedReplicas: 2,
          readyReplicas: 1,
          availableReplicas: 1,
          unavailableReplicas: 1,
          conditions: [deploymentConditions.unavailable(), deploymentConditions.progressing("api-7f9c6d8b5")],
        },
      }),
    );
    h.cluster.put(
      job({
        status: {
          succeeded: 1,
          startTime: "2026-11-29T09:58:20Z",
          completionTime: "2026-11-29T09:59:02Z",
          conditions: jobConditions.complete(),
        },
      }),
    );
    refuseList(h, owned);

    const id = await h.start(observationRequest({ resources: [{ apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", bootstrap: true }, api] }));
    const group = owned === "apps/ReplicaSet" ? "apps" : "";
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      failure: {
        stage: "healthy",
        resource: { ...api, namespace: "payments" },
        reason: "Forbidden",
        message: `stagewatch cannot list ${resource}: ${resource} is forbidden: User "${serviceAccount}" cannot list resource "${resource}" in API group "${group}" at the cluster scope`,
      },
    });
    // The Job settled from its own status before the refusal: it keeps its verdict.
    expect(h.events.verdict(id).resources[0]).toMatchObject({ state: "settled" });
  });
});

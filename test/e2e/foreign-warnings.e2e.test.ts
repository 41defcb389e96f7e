/**
 * Issue 32, finding 1, tried from the outside on the documented layout: a member of TEAM_B, who
 * may create Events in team B's namespace (`edit`) and see team A's pods (`view`), writes a Warning
 * with reason ImagePullBackOff naming a TEAM_A pod's UID. The API server accepts it (it only checks
 * that the Event's involvedObject.namespace is the one it is created in). TEAM_A's observation,
 * with ImagePullBackOff in failOn, must neither fail nor show the text; a genuine Warning about the
 * same pod, written in team A's namespace, still fails it at once.
 */
import { ApiException, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Observer } from "../../src/bus/index.ts";
import { useAccountLayout } from "./support/accountLayout.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig } from "./support/cluster.ts";
import { kubeletWarning } from "./support/events.ts";
import { deployment } from "./support/manifests.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";
import { teamMember } from "./support/teamMember.ts";

const admin = kubeConfig();
const layout = useAccountLayout();
let namespaceA: string;
let namespaceB: string;
let memberOfB: KubeConfig;
let teamA: Observer;

beforeAll(async () => {
  // The shipped tenants file's patterns: team-a-* and team-b-*.
  [namespaceA, namespaceB] = await Promise.all([createNamespace("team-a"), createNamespace("team-b")]);
  memberOfB = await teamMember({ namespace: namespaceB, name: "ci", viewing: [namespaceA] });
  const started = await layout.start({ name: "foreign-warnings" });
  teamA = await started.observer("TEAM_A");
}, 300_000);

afterAll(async () => {
  await Promise.all([namespaceA, namespaceB].filter(Boolean).map(deleteNamespace));
});

const statusOf = (call: Promise<unknown>) => call.then(() => 201, (error: unknown) => (error instanceof ApiException ? error.code : Promise.reject(error)));

describe("another namespace's Warning naming your pod", () => {
  it("neither fails TEAM_A's observation nor shows its text; a genuine one about the same pod does", async () => {
    const api = deployment({ namespace: namespaceA, name: "api", replicas: 1, fault: Fault.NeverReady });
    await apply(admin, api.manifest);
    const run = await teamA.observe(observeRequest({ deployment: "api", resources: [api.identity], timeoutSeconds: 300, stallSeconds: 0, failOn: ["ImagePullBackOff"] }));
    // The attacker's `view` in team A shows the pod and its UID.
    const attacker = memberOfB.makeApiClient(CoreV1Api);
    const pod = await eventually("TEAM_A's pod, as TEAM_B sees it", async () => (await attacker.listNamespacedPod({ namespace: namespaceA, labelSelector: "app=api" })).items[0]);
    const lure = 'Back-off pulling image "registry.example/api:v2": token expired, rotate it at https://registry-login.example/rotate';

    // What the API server lets TEAM_B do: an Event in its own namespace naming the UID; not one
    // naming team A's namespace from its own (422), nor one in team A's (403: `view` only).
    expect(await statusOf(attacker.createNamespacedEvent({ namespace: namespaceB, body: kubeletWarning(pod, { namespace: namespaceB, involvedNamespace: namespaceB, reason: "ImagePullBackOff", message: lure }) }))).toBe(201);
    expect(await statusOf(attacker.createNamespacedEvent({ namespace: namespaceB, body: kubeletWarning(pod, { namespace: namespaceB, involvedNamespace: namespaceA, reason: "ImagePullBackOff", message: lure }) }))).toBe(422);
    expect(await statusOf(attacker.createNamespacedEvent({ namespace: namespaceA, body: kubeletWarning(pod, { namespace: namespaceA, involvedNamespace: namespaceA, reason: "ImagePullBackOff", message: lure }) }))).toBe(403);

    // A genuine, non-terminal warning written after the forgery: the one Warning watch delivers in
    // resourceVersion order, so once it shows, the forgery has been read and judged.
    const admins = admin.makeApiClient(CoreV1Api);
    const probe = "Readiness probe failed: HTTP probe failed with statuscode: 503";
    await admins.createNamespacedEvent({ namespace: namespaceA, body: kubeletWarning(pod, { namespace: namespaceA, involvedNamespace: namespaceA, reason: "Unhealthy", message: probe }) });
    const seen = await eventually("the genuine Unhealthy warning in TEAM_A's reading", async () => {
      const verdict = await teamA.get(run.observationId);
      if (!verdict) throw new Error(`TEAM_A cannot get its own observation ${run.observationId}`);
      return verdict.resources[0]?.warning?.reason === "Unhealthy" || verdict.outcome !== "in_progress" ? verdict : undefined;
    });
    expect(seen.outcome).toBe("in_progress");
    expect(JSON.stringify(seen)).not.toContain("registry-login.example");

    // The same reason written where the pod lives is evidence: terminal at once.
    await admins.createNamespacedEvent({
      namespace: namespaceA,
      body: kubeletWarning(pod, { namespace: namespaceA, involvedNamespace: namespaceA, reason: "ImagePullBackOff", message: 'Back-off pulling image "registry.example/api:v2"' }),
    });
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "failed", tenant: "TEAM_A", failure: { reason: "ImagePullBackOff" } });
    expect(JSON.stringify(verdict)).not.toContain("registry-login.example");
    expect(teamA.rejected).toBe(0);
  });
});

/**
 * A rollout observed while an autoscaler scales the Deployment (issue 35, part 4). The test plays
 * the HPA controller, which the test control plane does not run (no metrics server, no autoscaling
 * controller: test/cluster/local-cluster.ts): a real autoscaling/v2 HorizontalPodAutoscaler object
 * targets the Deployment, and each scale is written as the controller writes it, the Deployment's
 * scale subresource first, then the HPA's status (currentReplicas, desiredReplicas, lastScaleTime,
 * AbleToScale=True/SucceededRescale). The deployment controller and kwok do the rest: the
 * proportional scaling of both ReplicaSets mid-rollout, pods, status.
 */
import { AppsV1Api, AutoscalingV2Api, type V2HorizontalPodAutoscaler } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { ObservationEvent } from "../../src/verdicts/contract/schemas.js";
import { eventually, kubeConfig } from "./support/cluster.js";
import { deployment, type Manifest } from "./support/manifests.js";
import { apply, nextReading, observeInOwnNamespace, observeRequest, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const apps = kc.makeApiClient(AppsV1Api);
const autoscaling = kc.makeApiClient(AutoscalingV2Api);
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("autoscaling", (file) => ({ stagewatch, namespace } = file));

/** What the HPA controller does when its computed size differs from the target's: scale, then say so in its status. */
async function scaleAsTheHpaController(hpa: V2HorizontalPodAutoscaler, name: string, from: number, to: number): Promise<void> {
  await apps.replaceNamespacedDeploymentScale({ name, namespace, body: { metadata: { name, namespace }, spec: { replicas: to } } });
  const now = new Date();
  const current = await autoscaling.readNamespacedHorizontalPodAutoscaler({ name: hpa.metadata!.name!, namespace });
  await autoscaling.replaceNamespacedHorizontalPodAutoscalerStatus({
    name: hpa.metadata!.name!,
    namespace,
    body: {
      ...current,
      status: {
        observedGeneration: current.metadata!.generation!,
        lastScaleTime: now,
        currentReplicas: from,
        desiredReplicas: to,
        currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: to > from ? 135 : 30, averageValue: to > from ? "270m" : "60m" } } }],
        conditions: [
          { type: "AbleToScale", status: "True", reason: "SucceededRescale", message: `the HPA controller was able to update the target scale to ${to}`, lastTransitionTime: now },
          { type: "ScalingActive", status: "True", reason: "ValidMetricFound", message: "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)", lastTransitionTime: now },
          { type: "ScalingLimited", status: "False", reason: "DesiredWithinRange", message: "the desired count is within the acceptable range", lastTransitionTime: now },
        ],
      },
    },
  });
}

describe("a rollout while an HPA scales the Deployment", () => {
  it("2 -> 5 -> 3 mid-rollout: each scale named in a progress event, no failure in between, succeeded", async () => {
    const v1 = deployment({ namespace, name: "web", replicas: 2, image: "registry.example/web:1" });
    await apply(kc, v1.manifest);
    await eventually("web v1 rolled out", async () => {
      const { status } = await apps.readNamespacedDeployment({ name: "web", namespace });
      return status?.updatedReplicas === 2 && status.availableReplicas === 2 && status.replicas === 2 ? true : undefined;
    });
    const hpa = await autoscaling.createNamespacedHorizontalPodAutoscaler({
      namespace,
      body: {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web", namespace },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          minReplicas: 2,
          maxReplicas: 6,
          metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } }],
        },
      },
    });

    // v2, rolled one pod at a time (maxSurge 1, maxUnavailable 0), each new pod available only after
    // minReadySeconds: a rollout that takes long enough for the autoscaler to act in the middle of it.
    const v2 = deployment({ namespace, name: "web", replicas: 2, image: "registry.example/web:2" });
    const spec = v2.manifest["spec"] as Record<string, unknown>;
    const rolling: Manifest = { ...v2.manifest, spec: { ...spec, minReadySeconds: 6, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } };
    const [applied] = await apply(kc, rolling);
    const identity = { ...v2.identity, generation: applied!.metadata!.generation! };
    // The HPA is declared beside the Deployment, as a chart ships it: read for existence only
    // (builtInKinds.ts), its ScalingActive and AbleToScale conditions are the autoscaler's business.
    const autoscaler = { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", namespace, name: "web" };
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "web", resources: [identity, autoscaler], timeoutSeconds: 120 }));
    // Every event kept as it is read, to look for a failure in between at the end.
    const seen: ObservationEvent[] = [];
    const source = run.progress[Symbol.asyncIterator]();
    const events: AsyncIterator<ObservationEvent> = {
      next: async () => {
        const next = await source.next();
        if (!next.done) seen.push(next.value);
        return next;
      },
    };

    // The observation has read the rollout at two replicas before the autoscaler acts.
    await eventually("the rollout read at 2 replicas", async () => ((await stagewatch.observer.get(run.observationId))?.resources.find((r) => r.identity.kind === "Deployment")?.message?.includes("/2 replicas ready") ? true : undefined));
    await scaleAsTheHpaController(hpa, "web", 2, 5);
    const up = await nextReading(events, (resource) => resource.message?.startsWith("scaled 2 -> 5") === true);
    expect(up).toMatchObject({ identity, state: "pending" });
    expect(up.message).toMatch(/^scaled 2 -> 5; \d\/5 replicas ready, \d updated/);

    await scaleAsTheHpaController(hpa, "web", 5, 3);
    const down = await nextReading(events, (resource) => resource.message?.startsWith("scaled 5 -> 3") === true);
    expect(down.state).not.toBe("failed");

    while (!(await events.next()).done);
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy", resources: [{ identity, state: "settled" }, { identity: autoscaler, state: "settled" }] });
    expect(verdict.resources[0]?.message).toMatch(/^scaled 5 -> 3; 3\/3 replicas ready, 3 updated/);
    const progress = seen.flatMap((event) => (event.type === "progress" ? [event.resource] : []));
    expect(progress.filter((resource) => resource.state === "failed")).toEqual([]);
    // The controller reconciled to each count the autoscaler wrote: the Deployment ends at 3, all of v2.
    const { status } = await apps.readNamespacedDeployment({ name: "web", namespace });
    expect(status).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
  });
});

/**
 * The live-cluster benchmark (`./dev.sh bench cluster`, bench/cluster) at a small size against the
 * e2e cluster, so it cannot rot: the compiled service as a read-only ServiceAccount, observations
 * of real Deployments, the independent watch, the verdict subscriber, the service's metrics, the
 * FlowSchema request counts per tool, and Helm 4's two wait modes on one release per scenario.
 * It asserts what was decided and counted, never how long anything took.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runClusterBench, type ClusterBenchResult } from "../../bench/cluster/scale.ts";
import { scratchDir } from "../cluster/stagewatch.ts";
import { compiledStagewatch } from "./support/cli.ts";
import { kubeconfigPath, natsUrl } from "./support/cluster.ts";

let result: ClusterBenchResult;
const observations = 6;

beforeAll(async () => {
  result = await runClusterBench({
    kubeconfigPath: kubeconfigPath(),
    natsUrl: natsUrl(),
    cli: compiledStagewatch().cli,
    dir: scratchDir("bench-cluster"),
    observations,
    pods: 12,
    namespaces: 2,
    concurrency: 3,
    helmSample: 1,
    helmTimeoutSeconds: 10,
    observationBudgetSeconds: 120,
    log: () => undefined,
  });
}, 300_000);


describe("bench cluster at a small size", () => {
  it("receives every verdict, each after its Deployment's decisive event was seen", () => {
    expect(result.sizes).toEqual({ observations, pods: 12, podsPerDeployment: 2, namespaces: 2 });
    expect(result.verdicts).toEqual({ received: observations, succeeded: observations, missing: 0 });
    expect(result.afterDecisiveEvent.count).toBe(observations);
    // The first copy is the notice, or the stream's copy when that came first: never after it.
    expect(result.streamCopyAfterDecisiveEvent.count).toBe(observations);
    expect(result.streamCopyAfterDecisiveEvent.p50Ms!).toBeGreaterThanOrEqual(result.afterDecisiveEvent.p50Ms!);
    expect(result.streamCopyAfterDecisiveEvent.maxMs!).toBeGreaterThanOrEqual(result.afterDecisiveEvent.maxMs!);
    // Both ends of every latency are stamped on the stamp thread, which measured its own loop.
    expect(result.stampThreadEventLoopDelay.maxMs).toBeGreaterThan(0);
    // One sample per verdict decided on a watch event; one decided from the cache at the
    // observation's start (rolled out before it was accepted) has none.
    expect(result.serviceEventToVerdict.count).toBeGreaterThan(0);
    expect(result.serviceEventToVerdict.count).toBeLessThanOrEqual(observations);
  });

  it("cuts each verdict's time at its decidedAt and keeps the slowest with their monotonic windows", () => {
    const { toDecision, decisionToSubscriber } = result.afterDecisiveEventSplit;
    expect(toDecision.count).toBe(observations);
    expect(decisionToSubscriber.count).toBe(observations);
    // decidedAt is to the millisecond and both clocks are this machine's: the two pieces add up
    // to the whole within the roundings, and the verdict never arrives before it was decided.
    expect(decisionToSubscriber.p50Ms!).toBeGreaterThanOrEqual(-1);
    expect(result.slowestVerdicts).toHaveLength(observations);
    for (const verdict of result.slowestVerdicts) {
      expect(Math.abs(verdict.toDecisionMs + verdict.decisionToSubscriberMs - verdict.ms)).toBeLessThanOrEqual(3);
      expect(verdict.arrivedAtUs - verdict.decisiveAtUs).toBeCloseTo(verdict.ms * 1000, -3);
      // The service's watch received each decisive event (its resourceVersion, seen inside serve)
      // before it decided: within the part of the window that comes before the decision.
      expect(verdict.serviceReceiptMs).toBeDefined();
      expect(verdict.serviceReceiptMs!).toBeLessThanOrEqual(verdict.toDecisionMs + 3);
      expect(verdict.deploymentWatchBlindMs).toBe(0);
    }
  });

  it("follows the service's watches from inside it, by resource", () => {
    // Opened at the warm-up, before the phase: known, none re-opened in a run this short.
    expect(Object.keys(result.service.watches ?? {})).toEqual(expect.arrayContaining(["deployments", "replicasets", "pods"]));
    expect(result.apiRequests.terminatedWatchersByResource).toBeDefined();
  });

  it("reads every namespace's pods beside the service with control readers, none ended early on a quiet cluster", () => {
    // Written by each control process when the phase ended: absent, it never got its first watch.
    expect(result.controlWatchers?.h2).toMatchObject({ endedEarly: 0, failed: 0 });
    expect(result.controlWatchers?.["http/1.1"]).toMatchObject({ endedEarly: 0, failed: 0 });
    // Over HTTP/1.1, though the API server offers HTTP/2 (src/streams/connectionPool.ts).
    expect(result.service.watches?.["pods"]).toMatchObject({ endedEarly: 0, failed: 0, protocols: ["http/1.1"] });
  });

  it("reads the service's pods, heap, RSS and CPU from its metrics", () => {
    expect(result.cluster.podsCachedByService).toBeGreaterThanOrEqual(12);
    expect(result.service.heapBytesAfter).toBeGreaterThan(0);
    expect(result.service.rssBytes).toBeGreaterThan(result.service.heapBytesAfter);
    expect(result.service.watchEvents).toBeGreaterThan(0);
  });

  it("counts no API request of stagewatch's per observation: its informers were open before", () => {
    expect(result.apiRequests.stagewatchPerObservation).toBe(0);
  });

  it("runs Helm's two wait modes beside stagewatch and counts their requests", () => {
    const helm = result.helm!;
    for (const mode of ["watcher", "legacy"] as const) {
      const { scenarios, apiRequestsPerRelease } = helm[mode];
      expect(apiRequestsPerRelease).toBeGreaterThan(0);
      expect(scenarios.healthy.helm.outcomes).toEqual({ "exit 0": 1 });
      expect(scenarios.imagePullBackOff.helm.outcomes).toEqual({ "exit 1": 1 });
      expect(scenarios.failingJob.helm.outcomes).toEqual({ "exit 1": 1 });
      expect(scenarios.healthy.stagewatch.outcomes).toEqual({ succeeded: 1 });
      expect(scenarios.imagePullBackOff.stagewatch.outcomes).toEqual({ failed: 1 });
      expect(scenarios.failingJob.stagewatch.outcomes).toEqual({ failed: 1 });
    }
  });
});

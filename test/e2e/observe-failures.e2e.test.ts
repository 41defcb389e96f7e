/**
 * Observations that end badly, through NATS against the real control plane: image faults fail
 * at once (not at the end of the budget), ProgressDeadlineExceeded stays pending with its reason
 * shown until the budget runs out, the timeout names every outstanding resource, and a declared
 * resource that is deleted or never created fails NotFound after the grace.
 */
import { AppsV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { ObservationEvent, ObservationVerdict } from "../../src/verdicts/contract/schemas.js";
import { Fault, kubeConfig } from "./support/cluster.js";
import { configMap, deployment, job } from "./support/manifests.js";
import { apply, collect, nextReading, observeRequest, observeInOwnNamespace, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("failures", (file) => ({ stagewatch, namespace } = file));

/** Milliseconds from the observation's start to its verdict, by the service's own clock. */
const verdictAfterMs = (verdict: ObservationVerdict) => Date.parse(verdict.decidedAt!) - Date.parse(verdict.startedAt);

describe("image faults fail fast", () => {
  // A generous budget: failing "fast" means the verdict came while most of it was left.
  const budgetSeconds = 600;

  it("ImagePullBackOff fails the observation long before its budget runs out", async () => {
    const search = deployment({ namespace, name: "search", fault: Fault.ImagePullBackOff, image: "registry.example/search:does-not-exist" });
    const failuresBefore = await stagewatch.metric("stagewatch_failures_total", { kind: "Deployment", reason: "ImagePullBackOff" });
    // Observing first and applying after: the verdict's time then includes the whole detection,
    // from the pods' creation by the controllers to the kubelet's (kwok's) waiting reason.
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "search", resources: [search.identity], timeoutSeconds: budgetSeconds }));
    const appliedAt = Date.now();
    await apply(kc, search.manifest);
    const verdict = await run.verdict;
    const detectionMs = Date.parse(verdict.decidedAt!) - appliedAt;
    console.info(`ImagePullBackOff detection latency: ${detectionMs} ms from apply to verdict (${verdictAfterMs(verdict)} ms from observation start)`);

    expect(verdict).toMatchObject({
      outcome: "failed",
      reached: "bootstrapped",
      failure: { stage: "healthy", resource: search.identity, reason: "ImagePullBackOff" },
      resources: [{ identity: search.identity, state: "failed", reason: "ImagePullBackOff" }],
    });
    expect(verdictAfterMs(verdict)).toBeLessThan((budgetSeconds * 1000) / 10);
    // The counts are whatever the Deployment's status said when the first pod showed the fault:
    // the pods can be read before the controller has counted them.
    expect(verdict.message).toMatch(
      new RegExp(
        `^deployment search cannot reach healthy: Deployment ${namespace}/search: failed: ImagePullBackOff: 0/2 replicas ready, [0-2] updated; ` +
          "pod search-[a-z0-9]+-[a-z0-9]+ container search: ImagePullBackOff",
      ),
    );
    expect(verdict.message).not.toContain("\n");
    expect(await stagewatch.metric("stagewatch_failures_total", { kind: "Deployment", reason: "ImagePullBackOff" })).toBe(failuresBefore + 1);
  });

  it("InvalidImageName fails at once too", async () => {
    const broken = deployment({ namespace, name: "broken", fault: Fault.InvalidImageName, image: "registry.example/Broken:Latest" });
    await apply(kc, broken.manifest);
    const verdict = await (await stagewatch.observer.observe(observeRequest({ deployment: "broken", resources: [broken.identity], timeoutSeconds: budgetSeconds }))).verdict;
    expect(verdict).toMatchObject({
      outcome: "failed",
      failure: { stage: "healthy", resource: broken.identity, reason: "InvalidImageName" },
      resources: [{ identity: broken.identity, state: "failed", reason: "InvalidImageName" }],
    });
    expect(verdictAfterMs(verdict)).toBeLessThan((budgetSeconds * 1000) / 10);
    expect(verdict.message).toMatch(
      new RegExp(`^deployment broken cannot reach healthy: Deployment ${namespace}/broken: failed: InvalidImageName: .*pod broken-[a-z0-9-]+ container broken: InvalidImageName`),
    );
  });
});

describe("slow rollouts", () => {
  it("ProgressDeadlineExceeded stays pending with its reason; the timeout names every outstanding resource with its last reading", async () => {
    const settings = configMap(namespace, "slow-settings");
    const slow = deployment({ namespace, name: "slow", replicas: 2, progressDeadlineSeconds: 2, fault: Fault.NeverReady });
    const warmup = job({ namespace, name: "cache-warmup", bootstrapLabel: true });
    // A bootstrap Job whose pod never becomes ready never completes either.
    const stuck = job({ namespace, name: "stuck-migrate", bootstrapLabel: true, fault: Fault.NeverReady });
    await apply(kc, settings.manifest, slow.manifest, warmup.manifest, stuck.manifest);

    const resources = [settings.identity, warmup.identity, stuck.identity, slow.identity];
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "slow", resources, timeoutSeconds: 20 }));
    const { events, verdict } = await collect(run);

    // While the budget lasted, the deadline was reported as the reason, never as a failure.
    const slowReadings = events.flatMap((e: ObservationEvent) => (e.type === "progress" && e.resource.identity.name === "slow" ? [e.resource] : []));
    expect(slowReadings.some((r) => r.reason === "ProgressDeadlineExceeded")).toBe(true);
    expect(slowReadings.every((r) => r.state === "pending")).toBe(true);

    expect(verdict).toMatchObject({
      outcome: "timed_out",
      required: "healthy",
      reached: "applied",
      failure: { stage: "bootstrapped", resource: stuck.identity },
      resources: [
        { identity: settings.identity, state: "settled" },
        { identity: warmup.identity, state: "settled", message: "1/1 completions" },
        { identity: stuck.identity, state: "pending" },
        { identity: slow.identity, state: "pending", reason: "ProgressDeadlineExceeded" },
      ],
    });
    const lines = verdict.message.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^deployment slow did not reach bootstrapped within 20s: Job ${namespace}/stuck-migrate: 0/1 completions, 1 active; ` +
          "pod stuck-migrate-[a-z0-9]+: ContainersNotReady: containers with unready status: \\[stuck-migrate\\]$",
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^deployment slow did not reach healthy within 20s: Deployment ${namespace}/slow: 0/2 replicas ready, 2 updated; ` +
          'ProgressDeadlineExceeded: ReplicaSet "slow-[a-z0-9]+" has timed out progressing\\.; ' +
          "pod slow-[a-z0-9]+-[a-z0-9]+: ContainersNotReady: containers with unready status: \\[slow\\]$",
      ),
    );
    expect(verdict.message).not.toMatch(/deadline exceeded/i);
  });
});

describe("absent resources", () => {
  it("a resource deleted mid-observation fails NotFound once the grace has passed", async () => {
    const doomed = deployment({ namespace, name: "doomed", fault: Fault.NeverReady });
    await apply(kc, doomed.manifest);
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "doomed", resources: [doomed.identity], absentGraceSeconds: 2 }));
    // Seen, and pending on its never-ready pods, before it goes.
    await nextReading(run.progress[Symbol.asyncIterator](), (reading) => reading.reason === "ContainersNotReady");
    await kc.makeApiClient(AppsV1Api).deleteNamespacedDeployment({ namespace, name: "doomed" });

    const verdict = await run.verdict;
    // Stages reached stay reached; what the deletion blocks is the next one.
    expect(verdict).toMatchObject({
      outcome: "failed",
      reached: "bootstrapped",
      failure: { stage: "healthy", resource: doomed.identity, reason: "NotFound", message: "deleted before it settled" },
      resources: [{ identity: doomed.identity, state: "failed", reason: "NotFound", message: "deleted before it settled" }],
    });
    expect(verdict.message).toBe(`deployment doomed cannot reach healthy: Deployment ${namespace}/doomed: failed: NotFound: deleted before it settled`);
  });

  it("a resource never created fails NotFound after the grace, naming it", async () => {
    const present = configMap(namespace, "present-settings");
    const missing = configMap(namespace, "missing-settings");
    await apply(kc, present.manifest);
    const verdict = await (
      await stagewatch.observer.observe(observeRequest({ deployment: "absent", resources: [present.identity, missing.identity], absentGraceSeconds: 2 }))
    ).verdict;
    expect(verdict).toMatchObject({
      outcome: "failed",
      reached: "none",
      failure: { stage: "applied", resource: missing.identity, reason: "NotFound", message: "not found 2s after the caches synced" },
      resources: [
        { identity: present.identity, state: "settled" },
        { identity: missing.identity, state: "failed", reason: "NotFound" },
      ],
    });
    expect(verdict.message).toBe(
      `deployment absent cannot reach applied: ConfigMap ${namespace}/missing-settings: failed: NotFound: not found 2s after the caches synced`,
    );
  });
});

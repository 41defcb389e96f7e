/**
 * Jobs observed through NATS against the real Job controller: a bootstrap Job that fails (its
 * container's termination message in the verdict), an ordinary Job that completes, and a
 * bootstrap Job that the TTL controller deletes the moment it completes.
 */
import { ApiException, BatchV1Api, CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { eventually, Fault, kubeConfig } from "./support/cluster.js";
import { deployment, job } from "./support/manifests.js";
import { apply, collect, observeRequest, observeInOwnNamespace, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
let stagewatch: StagewatchUnderTest;
let namespace: string;

observeInOwnNamespace("jobs", (file) => ({ stagewatch, namespace } = file));

describe("bootstrap Jobs", () => {
  it("a failing bootstrap Job fails the deployment at bootstrapped, with its container's termination message", async () => {
    const terminationMessage = 'ERROR: relation "ledger_entries" already exists (SQLSTATE 42P07)';
    const migrate = job({ namespace, name: "schema-migrate", bootstrapLabel: true, fault: Fault.Error, terminationMessage });
    const api = deployment({ namespace, name: "api" });
    await apply(kc, migrate.manifest, api.manifest);

    const run = await stagewatch.observer.observe(observeRequest({ deployment: "payments", resources: [migrate.identity, api.identity] }));
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({
      outcome: "failed",
      required: "healthy",
      reached: "applied",
      failure: { stage: "bootstrapped", resource: migrate.identity, reason: "BackoffLimitExceeded" },
      resources: [{ identity: migrate.identity, state: "failed", reason: "BackoffLimitExceeded" }, { identity: api.identity }],
    });
    const failedPod = await podOf(namespace, "schema-migrate");
    const expectedText =
      `Job has reached the specified backoff limit; pod ${failedPod} container schema-migrate: Error: ${terminationMessage}`;
    expect(verdict.failure?.message).toBe(expectedText);
    expect(verdict.message).toBe(`deployment payments cannot reach bootstrapped: Job ${namespace}/schema-migrate: failed: BackoffLimitExceeded: ${expectedText}`);
  });

  it("a bootstrap Job deleted by ttlSecondsAfterFinished: 0 right after completing still counts", async () => {
    const seed = job({ namespace, name: "seed-data", ttlSecondsAfterFinished: 0 });
    const api = deployment({ namespace, name: "catalog" });
    const declared = [{ ...seed.identity, bootstrap: true }, api.identity];
    // Observed before it is applied, as a pipeline that starts observing first would: a Job that
    // ran and vanished before the observation began cannot be told from one never created.
    const run = await stagewatch.observer.observe(observeRequest({ deployment: "catalog", resources: declared }));
    await apply(kc, seed.manifest, api.manifest);
    const { events, verdict } = await collect(run);

    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "healthy",
      resources: [
        { identity: declared[0], state: "settled", message: "1/1 completions" },
        { identity: api.identity, state: "settled" },
      ],
    });
    expect(verdict.message).toBe("deployment catalog reached healthy: 2 resources settled");
    expect(events.filter((e) => e.type === "stage").map((e) => e.stage)).toEqual(["applied", "bootstrapped", "healthy"]);
    // The TTL controller really deleted it: the verdict did not need the Job to stay.
    await eventually("the Job deleted by its TTL", () => jobGone(namespace, "seed-data"));
  });
});

describe("ordinary Jobs", () => {
  it("an ordinary Job that completes is healthy, counted as 1/1 completions", async () => {
    const report = job({ namespace, name: "nightly-report" });
    await apply(kc, report.manifest);
    const verdict = await (await stagewatch.observer.observe(observeRequest({ deployment: "reports", resources: [report.identity] }))).verdict;
    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "healthy",
      resources: [{ identity: report.identity, state: "settled", message: "1/1 completions" }],
    });
    expect(verdict.message).toBe("deployment reports reached healthy: 1 resource settled");
  });

  it("a failed ordinary Job does not fail a deployment that requires only bootstrapped", async () => {
    const report = job({ namespace, name: "weekly-report", fault: Fault.Error });
    await apply(kc, report.manifest);
    await eventually("the Job failed", async () => {
      const read = await kc.makeApiClient(BatchV1Api).readNamespacedJob({ namespace, name: "weekly-report" });
      return read.status?.conditions?.some((c) => c.type === "Failed" && c.status === "True") || undefined;
    });
    const request = observeRequest({ deployment: "weekly", require: "bootstrapped", resources: [report.identity] });
    const verdict = await (await stagewatch.observer.observe(request)).verdict;
    // Only bootstrap Jobs count toward bootstrapped; this one's failure blocks healthy alone.
    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "bootstrapped",
      resources: [{ identity: report.identity, state: "failed", reason: "BackoffLimitExceeded" }],
    });
    expect(verdict.failure).toBeUndefined();
    expect(verdict.message).toBe("deployment weekly reached bootstrapped: 1 resource exists");
  });
});

/** The one pod of a Job. */
async function podOf(namespace: string, jobName: string): Promise<string> {
  const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: `batch.kubernetes.io/job-name=${jobName}` });
  expect(pods.items).toHaveLength(1);
  return pods.items[0]!.metadata!.name!;
}

async function jobGone(namespace: string, name: string): Promise<true | undefined> {
  try {
    await kc.makeApiClient(BatchV1Api).readNamespacedJob({ namespace, name });
    return undefined;
  } catch (error) {
    if (error instanceof ApiException && error.code === 404) return true;
    throw error;
  }
}

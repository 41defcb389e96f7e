/**
 * Issue 32, finding 3, tried from the outside on the documented layout: TEAM_B observes its own
 * custom resource 20 times (its ten a second, twice) and rewrites the resource's condition with a 900 KiB `reason` (a planted
 * password and terminal escape sequences in it) 30 times, while TEAM_A observes a Deployment.
 * Before, the reason travelled whole into readings, records, events and `get` (RSS past the chart's
 * 512 MiB, /healthz failing, other tenants' p95 in seconds). Now a reason that is not a reason word
 * is shown as `UnreadableReason`: TEAM_B's `get` holds neither the password nor the text, every
 * TEAM_B event stays small, TEAM_A's rollout is judged, and the service stays alive and within the
 * chart's memory limit. Latencies and RSS are printed, not asserted as times.
 */
import { readFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Observer } from "../../src/bus/index.ts";
import { kubeJson } from "../cluster/kubeJson.ts";
import { useAccountLayout, type AccountLayout } from "./support/accountLayout.ts";
import { createNamespace, deleteNamespace, eventually, kubeConfig } from "./support/cluster.ts";
import { installKind, removeKind, type TestKind } from "./support/crds.ts";
import { deployment } from "./support/manifests.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const kc = kubeConfig();
const layout = useAccountLayout();
/** The chart's memory limit (helm/stagewatch/values.yaml resources.limits.memory). */
const chartMemoryLimitBytes = 512 * 1024 * 1024;
let started: AccountLayout;
let namespaceA: string;
let namespaceB: string;
let widgets: TestKind;

beforeAll(async () => {
  [namespaceA, namespaceB] = await Promise.all([createNamespace("team-a"), createNamespace("team-b")]);
  // A group no health library entry knows: the generic fallback reads the Ready condition.
  widgets = await installKind(`text-${randomBytes(3).toString("hex")}.e2e.stagewatch.io`, "Widget", "widgets", { statusSubresource: true });
  started = await layout.start({ name: "cluster-text" });
}, 300_000);

afterAll(async () => {
  await Promise.all([namespaceA, namespaceB].filter(Boolean).map(deleteNamespace));
  if (widgets) await removeKind(widgets);
});

/** The service's resident set, from /proc. */
function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? 0) * 1024;
}

/** A reason as a hostile writer would make it: 900 KiB, a password, colour and bidi controls. */
function hostileReason(round: number): string {
  return `Failing\u001b[31m password=hunter2-${round} \u202e${"x".repeat(900 * 1024)}`;
}

describe("a tenant writing a 900 KiB condition reason on its own custom resource", () => {
  it("is shown UnreadableReason, scrubbed and small; the other tenant's rollout and the service go on", async () => {
    const path = `/apis/${widgets.apiVersion}/namespaces/${namespaceB}/widgets`;
    await kubeJson(kc, "POST", path, { apiVersion: widgets.apiVersion, kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } });
    const identity = { apiVersion: widgets.apiVersion, kind: "Widget", namespace: namespaceB, name: "w" };
    const teamB: Observer = await started.observer("TEAM_B");
    const teamA: Observer = await started.observer("TEAM_A");
    // Ten a second, the shipped tenants file's rate for TEAM_B.
    const observeTen = () => Promise.all(Array.from({ length: 10 }, () => teamB.observe(observeRequest({ deployment: "widget", resources: [identity], timeoutSeconds: 600 }))));
    const runsB = await observeTen();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    runsB.push(...(await observeTen()));
    const largestEventB = { bytes: 0 };
    for (const run of runsB) {
      void (async () => {
        for await (const event of run.progress) largestEventB.bytes = Math.max(largestEventB.bytes, JSON.stringify(event).length);
      })();
    }

    const pid = started.service.process.pid!;
    const health = { polls: 0, failed: 0, peakRss: rssBytes(pid) };
    let flooding = true;
    const polling = (async () => {
      while (flooding) {
        health.polls++;
        const ok = await fetch(`${started.service.url}/healthz`, { signal: AbortSignal.timeout(5_000) }).then((response) => response.ok, () => false);
        if (!ok) health.failed++;
        health.peakRss = Math.max(health.peakRss, rssBytes(pid));
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    // TEAM_A's rollout, observed while TEAM_B writes.
    const api = deployment({ namespace: namespaceA, name: "api", replicas: 1 });
    const writes = (async () => {
      for (let round = 0; round < 30; round++) {
        const status = { conditions: [{ type: "Ready", status: "False", reason: hostileReason(round), message: `round ${round}`, lastTransitionTime: new Date().toISOString() }] };
        const current = await kubeJson(kc, "GET", `${path}/w`);
        await kubeJson(kc, "PUT", `${path}/w/status`, { ...current, status });
      }
    })();
    await apply(kc, api.manifest);
    const startedA = performance.now();
    const runA = await teamA.observe(observeRequest({ deployment: "api", resources: [api.identity], timeoutSeconds: 300 }));
    const verdictA = await runA.verdict;
    const verdictMsA = performance.now() - startedA;
    await writes;

    const seen = await eventually("TEAM_B's reading of the last write", async () => {
      const verdict = await teamB.get(runsB[0]!.observationId);
      return verdict?.resources[0]?.message?.includes("round 29") ? verdict : undefined;
    });
    flooding = false;
    await polling;
    console.log(
      `cluster-text: TEAM_A observe to verdict ${verdictMsA.toFixed(0)} ms; /healthz ${health.failed} of ${health.polls} polls failed; ` +
        `peak RSS ${(health.peakRss / 2 ** 20).toFixed(0)} MiB; TEAM_B's largest event ${largestEventB.bytes} B; its get ${JSON.stringify(seen).length} B`,
    );

    expect(verdictA).toMatchObject({ outcome: "succeeded", tenant: "TEAM_A" });
    expect(seen.resources[0]).toMatchObject({ state: "pending", reason: "UnreadableReason" });
    const shown = JSON.stringify(seen);
    expect(shown).not.toContain("hunter2");
    expect(shown).not.toContain("\u001b");
    expect(shown).not.toContain("\u202e");
    expect(shown.length).toBeLessThan(64 * 1024);
    expect(largestEventB.bytes).toBeGreaterThan(0);
    expect(largestEventB.bytes).toBeLessThan(64 * 1024);
    expect(health.failed).toBe(0);
    expect(health.peakRss).toBeLessThan(chartMemoryLimitBytes);
    await Promise.all(runsB.map((run) => teamB.cancel(run.observationId, "done")));
  });
});

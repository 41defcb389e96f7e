// The engine with a deployment history (issue 22): the expectation read as an observation begins,
// carried by progress events and the verdict, the verdict's comparison, the history appended once
// the verdict is out, `stallSeconds: auto` from the earlier times to the stage waited for, and the
// timeline and trace built from the record even across an adoption. On virtual time.
import { describe, expect, it } from "vitest";
import { historyKey } from "../bus/index.js";
import { TenantEntry, tenantCaller } from "../tenants/index.js";
import type { DecidedObservation } from "../verdicts/index.js";
import { successEntry } from "../../test/fixtures/history.js";
import { deployment, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { defaultLeaseTiming } from "./leases/leasePolicy.js";
import type { TraceSink } from "./ports.js";
import { engineHarness, InMemoryHistories, observationRequest } from "./testing/index.js";

const rollingOut = () => rollingOutDeployment({ replicas: 2, ready: 1 });

/** Earlier successes of `payments` that reached healthy in these many seconds. */
function historyOf(seconds: readonly number[]): InMemoryHistories {
  const histories = new InMemoryHistories();
  histories.byKey.set(historyKey("payments", undefined), { entries: seconds.map((s, i) => successEntry(`earlier-${i}`, s, 1)) });
  return histories;
}

class CapturingTraces implements TraceSink {
  readonly exported: DecidedObservation[] = [];
  export(decided: DecidedObservation): void {
    this.exported.push(structuredClone(decided));
  }
  traceIdOf(): string {
    return "4bf92f3577b34da6a3ce929d0e0e4736";
  }
}

describe("an observation of a deployment with a history", () => {
  it("carries the expectation, ranks its success, and joins the history once its verdict is out", async () => {
    const history = historyOf([60, 70, 80, 90, 100]);
    const h = engineHarness({ history });
    h.cluster.put(rollingOut());
    const id = await h.start(observationRequest());
    await h.advance(75_000);
    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(0);
    const progress = h.events.of(id).find((event) => event.type === "progress");
    expect(progress).toMatchObject({ expectation: { stage: "healthy", medianSeconds: 80, p90Seconds: 100, samples: 5, message: "usually 1m20s, 90% within 1m40s, from 5 earlier rollouts" } });
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "succeeded",
      history: { earlier: 5, comparison: { stage: "healthy", seconds: 75, fasterThan: 3, message: "healthy in 1m15s: faster than 3 of 5 earlier rollouts (usually 1m20s, 90% within 1m40s, from 5 earlier rollouts)" } },
    });
    const entries = history.byKey.get(historyKey("payments", undefined))!.entries;
    expect(entries).toHaveLength(6);
    expect(entries.at(-1)).toMatchObject({ observationId: id, outcome: "succeeded", stageSeconds: { applied: 0, bootstrapped: 0, healthy: 75 } });
  });

  it("stall auto: one notice once the stage waited for takes longer than 95% of the earlier rollouts took, never a failure", async () => {
    const h = engineHarness({ history: historyOf([60, 70, 80, 90, 100]) });
    h.cluster.put(rollingOut());
    const id = await h.start(observationRequest({ stallSeconds: "auto" }));
    await h.advance(99_999);
    expect(h.events.of(id).filter((event) => event.type === "stalled")).toEqual([]);
    await h.advance(1);
    const stalled = h.events.of(id).filter((event) => event.type === "stalled");
    expect(stalled).toHaveLength(1);
    expect(stalled[0]).toMatchObject({
      sinceSeconds: 100,
      basis: { stage: "healthy", quantile: 0.95, thresholdSeconds: 100, samples: 5 },
      message: expect.stringMatching(/^deployment payments has taken 1m40s and has not reached healthy: 95% of 5 earlier rollouts reached it within 1m40s \(stall auto: the 95% quantile of their times to healthy, at least 5s\); waiting for: Deployment payments\/api: 1\/2 replicas ready/),
    });
    await h.advance(60_000);
    expect(h.events.of(id).filter((event) => event.type === "stalled")).toHaveLength(1);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");
    expect((await h.records.getRecord(id))?.record.timeline?.notices).toMatchObject([{ type: "stalled" }]);
  });

  it("stall auto without enough history falls back to the default quiet time", async () => {
    const h = engineHarness({ history: historyOf([60, 70]) });
    h.cluster.put(rollingOut());
    const id = await h.start(observationRequest({ stallSeconds: "auto" }));
    await h.advance(119_999);
    expect(h.events.of(id).filter((event) => event.type === "stalled")).toEqual([]);
    await h.advance(1);
    expect(h.events.of(id).filter((event) => event.type === "stalled")).toMatchObject([{ sinceSeconds: 120 }]);
  });

  it("a deployment never observed gets no expectation, and its first success starts the history", async () => {
    const history = new InMemoryHistories();
    const h = engineHarness({ history });
    h.cluster.put(deployment({ replicas: 2 }));
    const id = await h.start(observationRequest());
    expect(h.events.verdict(id).history).toBeUndefined();
    expect(history.byKey.get(historyKey("payments", undefined))?.entries).toHaveLength(1);
  });
});

describe("a tenant's history", () => {
  it("is its own: another team's rollouts of a deployment of the same name set no expectation, and its success starts its own history", async () => {
    const history = historyOf([60, 70, 80, 90, 100]);
    const h = engineHarness({ history });
    h.cluster.put(deployment({ replicas: 2 }));
    const teamA = tenantCaller("TEAM_A", TenantEntry.parse({ namespaces: ["payments"] }));
    const id = await h.start(observationRequest(), teamA);
    expect(h.events.verdict(id)).toMatchObject({ outcome: "succeeded", tenant: "TEAM_A" });
    expect(h.events.verdict(id).history).toBeUndefined();
    expect(history.byKey.get(historyKey("payments", "TEAM_A"))?.entries).toMatchObject([{ observationId: id }]);
    expect(history.byKey.get(historyKey("payments", undefined))?.entries).toHaveLength(5);
  });
});

describe("the timeline a trace is built from", () => {
  it("is carried across a crash and an adoption, and the trace goes out once, from the replica that decided", async () => {
    const traces = new CapturingTraces();
    const h = engineHarness({ history: new InMemoryHistories(), traces });
    const a = h.first;
    const b = h.replica("replica-b");
    await a.startAdopting();
    await b.startAdopting();
    h.cluster.put(rollingOut());
    const id = await h.start(observationRequest({ traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" }));
    const startMs = h.clock.scheduler.now();
    const appliedAt = (await h.records.getRecord(id))!.record.timeline?.stages.applied;
    expect(appliedAt).toBe(startMs);

    a.crash();
    await h.advance(defaultLeaseTiming.durationMs + defaultLeaseTiming.scanEveryMs);
    expect(b.engine.activeCount).toBe(1);
    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(0);

    expect(traces.exported).toHaveLength(1);
    const [decided] = traces.exported;
    expect(decided!.request.traceparent).toBe("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    expect(decided!.timeline.stages).toEqual({ applied: startMs, bootstrapped: startMs, healthy: h.clock.scheduler.now() });
    expect(decided!.timeline.notices).toMatchObject([{ type: "adopted", message: expect.stringMatching(/^adopted by replica-b from replica-a/) }]);
    expect(decided!.timeline.resources["apps/Deployment/payments/api"]).toBe(h.clock.scheduler.now());
  });
});

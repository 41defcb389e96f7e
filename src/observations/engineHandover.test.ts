// Observations that outlive the replica that accepted them (SPEC section 10): leases, adoption
// after a crash or a hand-over, one verdict whoever decides, cancel on any replica. Several
// replicas of the engine share one cluster, one records bucket, one lease bucket and one event
// stream, on virtual time.
import { describe, expect, it } from "vitest";
import { pod, waiting } from "../../test/fixtures/kube/pods.js";
import { deployment, job, jobConditions, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { maxAdoptionsInFlight } from "./leases/adoption.js";
import { defaultLeaseTiming } from "./leases/leasePolicy.js";
import { engineHarness, observationRequest, type EngineHarness } from "./testing/index.js";

const api = { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 } as const;
const migrate = { apiVersion: "batch/v1", kind: "Job", name: "schema-migrate", bootstrap: true } as const;
const { durationMs } = defaultLeaseTiming;

const rollingOut = (ready: number) => rollingOutDeployment({ replicas: 2, ready });
const currentRs = replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 0 });
const completedJob = () =>
  job({ status: { succeeded: 1, startTime: "2026-11-29T10:00:05Z", completionTime: "2026-11-29T10:00:41Z", conditions: jobConditions.complete() } });

/** Replica a accepts, replica b stands by; both adopt. */
async function twoReplicas(): Promise<{ h: EngineHarness; a: EngineHarness["first"]; b: ReturnType<EngineHarness["replica"]> }> {
  const h = engineHarness();
  const a = h.first;
  const b = h.replica("replica-b");
  await a.startAdopting();
  await b.startAdopting();
  return { h, a, b };
}

const verdictsOf = (h: EngineHarness, id: string) => h.events.of(id).filter((event) => event.type === "verdict");

/** Replica b drives `id` now; the rollout completes, and b publishes the one verdict. */
async function drivenByBToItsVerdict(h: EngineHarness, b: ReturnType<EngineHarness["replica"]>, id: string): Promise<void> {
  expect(b.engine.activeCount).toBe(1);
  expect((await h.records.getRecord(id))!.record.owner).toBe("replica-b");
  h.cluster.put(deployment({ replicas: 2 }));
  await h.advance(0);
  expect(verdictsOf(h, id)).toHaveLength(1);
  expect(h.events.verdict(id).outcome).toBe("succeeded");
}

describe("a crashed replica's observations", () => {
  it("are adopted once the lease expires: same id, same deadline, one verdict, a bootstrap Job settled before the crash still counts after its TTL removed it", async () => {
    const { h, a, b } = await twoReplicas();
    h.cluster.put(rollingOut(1));
    h.cluster.put(completedJob());
    const id = await h.start(observationRequest({ resources: [migrate, api] }));
    expect(h.events.lines(id)).toEqual(["progress Job payments/schema-migrate settled", "stage applied", "stage bootstrapped"]);
    const before = (await h.records.getRecord(id))!.record;

    a.crash();
    h.cluster.delete(completedJob()); // ttlSecondsAfterFinished
    await h.advance(durationMs / 2);
    expect(b.engine.activeCount).toBe(0);
    await h.advance(durationMs / 2 + defaultLeaseTiming.scanEveryMs);
    expect(b.engine.activeCount).toBe(1);
    const adopted = (await h.records.getRecord(id))!.record;
    expect(adopted).toMatchObject({ owner: "replica-b", adoptions: 1, deadline: before.deadline, startedAt: before.startedAt });

    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(0);
    expect(verdictsOf(h, id)).toHaveLength(1);
    expect(h.events.verdict(id)).toMatchObject({
      observationId: id,
      outcome: "succeeded",
      reached: "healthy",
      deadline: before.deadline,
      resources: [{ state: "settled", message: "1/1 completions" }, { state: "settled" }],
    });
    expect(h.leaseStore.all()).toEqual([]);
  });

  it("time out at once, with the readings the record holds, when the deadline passed while nobody drove them", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    h.cluster.put(currentRs);
    h.cluster.put(pod({ name: "api-7f9c6d8b5-x2k8p", owner: currentRs, phase: "Pending", containers: [waiting("api", "ContainerCreating")] }));
    const id = await h.start(observationRequest({ resources: [api], timeoutSeconds: 60 }));
    h.first.crash();
    await h.advance(120_000);

    const later = h.replica("replica-b");
    await later.startAdopting();
    expect(verdictsOf(h, id)).toHaveLength(1);
    const verdict = h.events.verdict(id);
    expect(verdict).toMatchObject({ outcome: "timed_out", deadline: "2026-11-29T10:01:00.000Z", decidedAt: "2026-11-29T10:01:00.000Z" });
    expect(verdict.message).toBe(
      "deployment payments did not reach healthy within 1m0s: Deployment payments/api: 0/2 replicas ready, 2 updated; pod api-7f9c6d8b5-x2k8p container api: ContainerCreating",
    );
  });

  it("that crashed between storing the verdict and publishing it get it published, once", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    // What a replica that died right after its terminal compare-and-swap leaves: a decided record, its lease.
    const stored = (await h.records.getRecord(id))!;
    const verdict = { ...stored.record.verdict!, outcome: "cancelled" as const, decidedAt: "2026-11-29T10:00:01.000Z", message: "cancelled" };
    await h.records.updateRecord({ ...stored.record, outcome: "cancelled", verdict }, stored.revision);
    h.first.crash();

    const b = h.replica("replica-b");
    await b.startAdopting();
    await h.advance(durationMs + defaultLeaseTiming.scanEveryMs);
    expect(verdictsOf(h, id)).toHaveLength(1);
    expect(h.events.verdict(id).outcome).toBe("cancelled");
    expect(h.leaseStore.all()).toEqual([]);
    expect(b.engine.activeCount).toBe(0);
  });
});

describe("a replica whose heartbeat cannot be stored", () => {
  it("stops driving before another replica may take its observations, which one adopts; one verdict", async () => {
    const { h, a, b } = await twoReplicas();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    // Replica a is cut off from NATS's KV for its heartbeat (its other writes still land: the worst case).
    const beat = h.leaseStore.beat.bind(h.leaseStore);
    h.leaseStore.beat = async (heartbeat, revision) => {
      if (heartbeat.replica === "replica-a") throw new Error("503 no responders");
      return beat(heartbeat, revision);
    };
    await h.advance(durationMs - 1_000);
    expect(a.engine.activeCount).toBe(1);
    expect(b.engine.activeCount).toBe(0);
    await h.advance(1_000 - defaultLeaseTiming.renewEveryMs / 10);
    // At every moment after, at most one replica drives it.
    expect(a.engine.activeCount).toBe(0);
    expect(b.engine.activeCount).toBe(0);
    await h.advance(defaultLeaseTiming.renewEveryMs / 10 + defaultLeaseTiming.scanEveryMs);
    expect(a.engine.activeCount).toBe(0);
    await drivenByBToItsVerdict(h, b, id);
    expect(h.logged.filter((line) => line.message.startsWith("every lease counted lost"))).toHaveLength(1);
  });
});

describe("a replica restarted under the same id", () => {
  it("takes its observations back at once, its new heartbeat keeping none of the old incarnation's alive", async () => {
    const h = engineHarness();
    await h.first.startAdopting();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    await h.advance(60_000);
    h.first.crash();
    const restarted = h.replica("replica-a");
    await restarted.startAdopting();
    await h.advance(0);
    expect(restarted.engine.activeCount).toBe(1);
    expect((await h.leaseStore.get(id))!.lease.incarnation).toBe(restarted.leases.incarnation);
    expect((await h.records.getRecord(id))!.record).toMatchObject({ owner: "replica-a", adoptions: 1 });
  });
});

describe("a replica shutting down", () => {
  it("hands its leases back, and another replica adopts at once, before any lease would expire", async () => {
    const { h, a, b } = await twoReplicas();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    await a.shutDown();
    await h.advance(0);
    await drivenByBToItsVerdict(h, b, id);
  });
});

describe("a hand-over of many observations", () => {
  it("is adopted whole, at most maxAdoptionsInFlight take-overs under way at once, the rest waiting their turn", async () => {
    const { h, a, b } = await twoReplicas();
    const count = maxAdoptionsInFlight * 3 + 5;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      h.cluster.put(rollingOutDeployment({ name: `api-${i}`, replicas: 2, ready: 0 }));
      ids.push(await h.start(observationRequest({ key: `ci-4812/api-${i}`, resources: [{ ...api, name: `api-${i}` }] })));
    }
    expect(a.engine.activeCount).toBe(count);
    // Each take-over begins by reading the record: count those under way at once.
    const getRecord = h.records.getRecord.bind(h.records);
    let underWay = 0;
    let most = 0;
    h.records.getRecord = async (id) => {
      most = Math.max(most, ++underWay);
      try {
        return await getRecord(id);
      } finally {
        underWay -= 1;
      }
    };

    await a.shutDown();
    await h.advance(0);
    expect(b.engine.activeCount).toBe(count);
    expect(most).toBe(maxAdoptionsInFlight);
    for (const id of ids) expect((await getRecord(id))!.record).toMatchObject({ owner: "replica-b", adoptions: 1 });
  });
});

describe("a hand-over's last writes", () => {
  it("are stored before the lease is handed back, so the adopter resumes from the newest reading", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    // A slow KV: the first reading's write is in flight and the next one waits behind it when SIGTERM comes.
    const update = h.records.updateRecord.bind(h.records);
    const gate = Promise.withResolvers<void>();
    h.records.updateRecord = async (record, revision) => {
      await gate.promise;
      return update(record, revision);
    };
    const id = await h.start(observationRequest({ resources: [api] }));
    h.cluster.put(rollingOut(1));
    await h.advance(0);
    const handedOver = h.first.shutDown();
    await h.advance(0);
    expect((await h.leaseStore.get(id))?.lease.released).toBeUndefined();
    gate.resolve();
    await handedOver;
    expect((await h.leaseStore.get(id))?.lease.released).toBe(true);
    expect((await h.records.getRecord(id))!.record.verdict?.resources[0]?.message).toMatch(/^1\/2 replicas ready/);
  });
});

describe("exactly one verdict", () => {
  it("one adopter wins a lease several replicas race for", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    const ids = [await h.start(observationRequest({ key: "k1" })), await h.start(observationRequest({ key: "k2" }))];
    h.first.crash();
    const others = [h.replica("replica-b"), h.replica("replica-c")];
    for (const other of others) await other.startAdopting();
    await h.advance(durationMs + defaultLeaseTiming.scanEveryMs);
    expect(others.map((o) => o.engine.activeCount).reduce((x, y) => x + y)).toBe(2);

    h.cluster.put(deployment({ replicas: 1 }));
    await h.advance(0);
    for (const id of ids) expect(verdictsOf(h, id)).toHaveLength(1);
  });

  it("a replica whose lease was taken stops driving at once and publishes nothing more", async () => {
    const { h, a, b } = await twoReplicas();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    // Replica b takes the lease as if a's had expired (a froze); a's heartbeat finds another revision.
    const lease = (await h.leaseStore.get(id))!;
    expect(await b.leases.take(lease)).toBe(true);
    await b.engine.adopt(id, "expired");
    await h.advance(0);
    expect(a.engine.activeCount).toBe(0);

    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(0);
    expect(verdictsOf(h, id)).toHaveLength(1);
    expect((await h.records.getRecord(id))!.record).toMatchObject({ owner: "replica-b", outcome: "succeeded" });
  });
});

describe("any replica answers", () => {
  it("a cancel on a replica that does not drive the observation cancels it, and its driver stops without a verdict", async () => {
    const { h, a, b } = await twoReplicas();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    const cancelled = await b.engine.cancel(id, "superseded by revision 43");
    expect(cancelled).toMatchObject({ observationId: id, outcome: "cancelled" });
    await h.advance(0);
    expect(a.engine.activeCount).toBe(0);
    expect(await a.engine.get(id)).toMatchObject({ outcome: "cancelled" });

    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(0);
    expect(verdictsOf(h, id)).toHaveLength(1);
    expect(h.events.verdict(id).outcome).toBe("cancelled");
    expect(h.leaseStore.all()).toEqual([]);
  });

  it("a replayed key whose observation was adopted returns the same observation", async () => {
    const { h, a, b } = await twoReplicas();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest());
    a.crash();
    await h.advance(durationMs + defaultLeaseTiming.scanEveryMs);
    expect(b.engine.activeCount).toBe(1);
    const { ObservationRequest } = await import("../verdicts/index.js");
    expect(await b.engine.observe(ObservationRequest.parse(observationRequest()))).toEqual({ ok: true, observationId: id, replay: true });
  });
});

describe("what a crash during observe leaves behind", () => {
  it("a lease without a record, and a record whose key was never claimed, are removed by the adopter", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest());
    // A lease whose replica died before writing the record.
    await h.leaseStore.create("orphan-lease", { holder: "gone", expiresAt: "2026-11-29T09:00:00.000Z" });
    // A record whose replica died before claiming its key.
    const stored = (await h.records.getRecord(id))!;
    await h.records.putRecord({ ...stored.record, observationId: "unclaimed", request: { ...stored.record.request, key: "never-claimed" } });
    await h.leaseStore.create("unclaimed", { holder: "gone", expiresAt: "2026-11-29T09:00:00.000Z" });

    const b = h.replica("replica-b");
    await b.startAdopting();
    await h.advance(defaultLeaseTiming.scanEveryMs);
    expect(h.leaseStore.all().map((entry) => entry.observationId)).toEqual([id]);
    expect(await h.records.getRecord("unclaimed")).toBeUndefined();
    expect(b.engine.activeCount).toBe(0);
  });
});

describe("the record is the journal", () => {
  it("publishes a step's events only once a record holding them is stored; a verdict decided while NATS is away goes out when it returns", async () => {
    const h = engineHarness();
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    const linesBefore = h.events.lines(id);

    // NATS goes away: every record write fails.
    const update = h.records.updateRecord.bind(h.records);
    let away = true;
    h.records.updateRecord = async (record, revision) => {
      if (away) throw new Error("503 no responders");
      return update(record, revision);
    };
    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(10_000);
    // Decided in memory, but nothing was told: not the events, not get.
    expect(h.events.lines(id)).toEqual(linesBefore);
    expect((await h.engine.get(id))?.outcome).toBe("in_progress");

    away = false;
    await h.advance(5_000);
    expect(h.events.lines(id).slice(linesBefore.length)).toEqual(["progress Deployment payments/api settled", "stage healthy", "verdict succeeded"]);
    expect((await h.records.getRecord(id))!.record.outcome).toBe("succeeded");
    expect(verdictsOf(h, id)).toHaveLength(1);
  });
});

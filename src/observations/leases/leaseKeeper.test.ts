// The lease keeper's heartbeat on virtual time: one KV write per renewal interval however many
// leases it holds; every lease counted lost, and a new incarnation begun, a tick before a heartbeat
// that cannot be stored would let anyone else take them; nothing lost when NATS is away for less.
import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import { leaseHeldUntil, type Heartbeat } from "../../bus/index.js";
import { silentLogger } from "../../logging/index.js";
import { LeaseKeeper } from "./leaseKeeper.js";
import { heartbeatLapsesAt, leaseTimingFor } from "./leasePolicy.js";
import { InMemoryLeaseStore } from "../testing/index.js";
import { noopLeaseMetrics } from "../telemetry.js";

const drain = () => new Promise((resolve) => setImmediate(resolve));
const timing = leaseTimingFor(15_000);
const startAt = Date.parse("2026-11-29T10:00:00Z");

/** A keeper on its own virtual clock over `store`, its incarnations named `<replica>-1`, `-2`, ... */
function keeperOn(store: InMemoryLeaseStore, replicaId = "replica-a", scheduler = new VirtualTimeScheduler()) {
  if (scheduler.now() < startAt) scheduler.frame = startAt;
  let incarnations = 0;
  const keeper = new LeaseKeeper({ store, replicaId, timing, scheduler, metrics: noopLeaseMetrics, logger: silentLogger, newIncarnation: () => `${replicaId}-${++incarnations}` });
  const lost: string[] = [];
  keeper.onLost((id) => lost.push(`${scheduler.now() - startAt} ${id}`));
  /** One tick at a time, each write's acknowledgement before the next tick, as on a real clock. */
  const advanceTo = async (msFromStart: number) => {
    while (scheduler.now() < startAt + msFromStart) {
      scheduler.maxFrames = Math.min(scheduler.now() + 500, startAt + msFromStart);
      scheduler.flush();
      scheduler.frame = scheduler.maxFrames;
      await drain();
    }
  };
  return { keeper, lost, advanceTo, scheduler };
}

/** Counts the store's writes, and fails heartbeat writes while `away` (NATS unreachable). */
function countingStore() {
  const store = new InMemoryLeaseStore();
  const writes = { beats: [] as Heartbeat[], leaseUpdates: 0, away: false };
  const beat = store.beat.bind(store);
  store.beat = async (heartbeat, revision) => {
    if (writes.away) throw new Error("503 no responders");
    writes.beats.push(heartbeat);
    return beat(heartbeat, revision);
  };
  const update = store.update.bind(store);
  store.update = async (id, lease, revision) => {
    writes.leaseUpdates += 1;
    return update(id, lease, revision);
  };
  return { store, writes };
}

describe("LeaseKeeper heartbeat", () => {
  it("writes one heartbeat per renewal interval whatever it holds, and never a lease again", async () => {
    const { store, writes } = countingStore();
    const { keeper, advanceTo } = keeperOn(store);
    await keeper.startHeartbeat();
    for (let i = 0; i < 100; i++) await keeper.create(`obs-${i}`);
    await advanceTo(2_500);
    await keeper.create("late");
    await advanceTo(60_000);
    expect(writes.beats.map((b) => Date.parse(b.expiresAt) - timing.durationMs - startAt)).toEqual(Array.from({ length: 13 }, (_, i) => i * 5_000));
    expect(writes.leaseUpdates).toBe(0);
    expect(keeper.count).toBe(101);
    // Each lease, written once at the start, is held by the heartbeat of the incarnation that wrote it.
    const heartbeat = (await store.getHeartbeat("replica-a"))!.heartbeat;
    for (const { lease } of store.all()) {
      expect(lease).toMatchObject({ holder: "replica-a", incarnation: "replica-a-1" });
      expect(leaseHeldUntil(lease, heartbeat)).toBe(startAt + 75_000);
    }
    keeper.stopHeartbeat();
  });

  it("keeps everything through a NATS outage shorter than a lease, and writes at once when NATS is back", async () => {
    const { store, writes } = countingStore();
    const { keeper, lost, advanceTo } = keeperOn(store);
    await keeper.startHeartbeat();
    await keeper.create("obs-1");
    await advanceTo(5_000);
    writes.away = true;
    await advanceTo(17_000);
    expect(keeper.heartbeatFresh).toBe(true);
    writes.away = false;
    await keeper.beatNow();
    expect(writes.beats.at(-1)).toMatchObject({ incarnation: "replica-a-1", expiresAt: new Date(startAt + 17_000 + timing.durationMs).toISOString() });
    await advanceTo(40_000);
    expect(lost).toEqual([]);
    expect(keeper.holds("obs-1")).toBe(true);
    keeper.stopHeartbeat();
  });

  it("counts every lease lost a tick before a heartbeat it could not store expires, and comes back as another incarnation", async () => {
    const { store, writes } = countingStore();
    const { keeper, lost, advanceTo } = keeperOn(store);
    await keeper.startHeartbeat();
    await keeper.create("obs-1");
    await keeper.create("obs-2");
    await advanceTo(5_000);
    writes.away = true;
    const lastStoredBeat = (await store.getHeartbeat("replica-a"))!.heartbeat;
    const othersMayTakeAt = leaseHeldUntil(store.all()[0]!.lease, lastStoredBeat);
    expect(othersMayTakeAt).toBe(startAt + 20_000);

    await advanceTo(19_000);
    expect(lost).toEqual([]);
    await advanceTo(19_500);
    expect(lost).toEqual(["19500 obs-1", "19500 obs-2"]);
    expect(heartbeatLapsesAt(startAt + 5_000, timing)).toBe(startAt + 19_500);
    expect(keeper.count).toBe(0);
    expect(keeper.incarnation).toBe("replica-a-2");
    expect(keeper.heartbeatFresh).toBe(false);
    writes.away = false;
    await advanceTo(20_000);
    expect(keeper.heartbeatFresh).toBe(true);
    const heartbeat = (await store.getHeartbeat("replica-a"))!.heartbeat;
    expect(heartbeat.incarnation).toBe("replica-a-2");
    // The old leases are held by nothing now: free to whoever takes them first.
    for (const { lease } of store.all()) expect(leaseHeldUntil(lease, heartbeat)).toBeLessThanOrEqual(startAt + 20_000);
    keeper.stopHeartbeat();
  });

  it("a restart under the same id keeps none of the previous incarnation's leases alive", async () => {
    const store = new InMemoryLeaseStore();
    const before = keeperOn(store, "replica-a");
    await before.keeper.startHeartbeat();
    await before.keeper.create("obs-1");
    await before.advanceTo(30_000);
    before.keeper.stopHeartbeat();
    // The same pod's container restarted: same replica id, new process, new incarnation.
    const after = new LeaseKeeper({ store, replicaId: "replica-a", timing, scheduler: before.scheduler, metrics: noopLeaseMetrics, logger: silentLogger });
    await after.startHeartbeat();
    const heartbeat = (await store.getHeartbeat("replica-a"))!.heartbeat;
    expect(heartbeat.incarnation).toBe(after.incarnation);
    expect(leaseHeldUntil(store.all()[0]!.lease, heartbeat)).toBe(startAt + 15_000);
    after.stopHeartbeat();
  });

  it("takes its own heartbeat written without an acknowledgement for what it is, and another process's under its id as the loss of everything", async () => {
    const { store } = countingStore();
    const { keeper, lost, advanceTo } = keeperOn(store);
    await keeper.startHeartbeat();
    await keeper.create("obs-1");
    // Its own write stored while its acknowledgement was lost: the next compare-and-swap finds a newer revision of its own.
    await store.beat({ replica: "replica-a", incarnation: "replica-a-1", expiresAt: new Date(startAt + 16_000).toISOString() });
    await advanceTo(12_000);
    expect(lost).toEqual([]);
    // Another process started under the same id: found by the next compare-and-swap (beats at 5,500, 10,500, 15,500).
    await store.beat({ replica: "replica-a", incarnation: "someone-else", expiresAt: new Date(startAt + 30_000).toISOString() });
    await advanceTo(16_000);
    expect(lost).toEqual(["15500 obs-1"]);
    expect(keeper.incarnation).toBe("replica-a-2");
    keeper.stopHeartbeat();
  });
});

describe("LeaseKeeper and the lease's tenant", () => {
  it("names the observation's tenant in the lease it creates, takes over and hands back: list filters the lease table by it", async () => {
    const store = new InMemoryLeaseStore();
    const a = keeperOn(store, "replica-a");
    const b = keeperOn(store, "replica-b", a.scheduler);
    await Promise.all([a.keeper.startHeartbeat(), b.keeper.startHeartbeat()]);
    await a.keeper.create("obs-a", "TEAM_A");
    await a.keeper.create("obs-sole");
    await a.keeper.release("obs-a");
    expect((await store.get("obs-a"))?.lease).toMatchObject({ holder: "replica-a", released: true, tenant: "TEAM_A" });
    expect(await b.keeper.take((await store.get("obs-a"))!)).toBe(true);
    expect((await store.get("obs-a"))?.lease).toMatchObject({ holder: "replica-b", tenant: "TEAM_A" });
    expect((await store.get("obs-a"))?.lease.released).toBeUndefined();
    // Without a tenants file: no tenant, as before.
    expect((await store.get("obs-sole"))?.lease).not.toHaveProperty("tenant");
    a.keeper.stopHeartbeat();
    b.keeper.stopHeartbeat();
  });
});

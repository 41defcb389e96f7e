// The lease keeper's heartbeat: each lease renewed a renewal interval after it was written, so
// leases created at different moments are renewed at different moments (no burst of every
// lease's compare-and-swap at once), and none goes longer than an interval and a tick unrenewed.
import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logging/index.js";
import { LeaseKeeper } from "./leaseKeeper.js";
import { leaseTimingFor } from "./leasePolicy.js";
import { InMemoryLeaseStore } from "./testing/index.js";
import { noopLeaseMetrics } from "./telemetry.js";

const drain = () => new Promise((resolve) => setImmediate(resolve));

describe("LeaseKeeper heartbeat", () => {
  it("renews each lease when it is due, not every lease on one beat", async () => {
    const scheduler = new VirtualTimeScheduler();
    const store = new InMemoryLeaseStore();
    const renewals: string[] = [];
    const update = store.update.bind(store);
    store.update = async (id, lease, revision) => {
      renewals.push(`${scheduler.now()} ${id}`);
      return update(id, lease, revision);
    };
    const timing = leaseTimingFor(15_000);
    const keeper = new LeaseKeeper({ store, replicaId: "replica-a", timing, scheduler, metrics: noopLeaseMetrics, logger: silentLogger });
    // One tick at a time, each renewal's acknowledgement before the next tick.
    const advanceTo = async (ms: number) => {
      while (scheduler.now() < ms) {
        scheduler.maxFrames = scheduler.now() + 500;
        scheduler.flush();
        await drain();
      }
    };
    keeper.startHeartbeat();
    await keeper.create("first");
    await advanceTo(2_500);
    await keeper.create("second");
    await advanceTo(5_000);
    expect(renewals).toEqual(["5000 first"]);
    await advanceTo(7_500);
    expect(renewals).toEqual(["5000 first", "7500 second"]);
    await advanceTo(15_000);
    expect(renewals).toEqual(["5000 first", "7500 second", "10000 first", "12500 second", "15000 first"]);
    // A renewal still in flight on the next tick is not sent twice.
    store.update = async (id, lease, revision) => {
      renewals.push(`${scheduler.now()} ${id} (slow)`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return update(id, lease, revision);
    };
    scheduler.maxFrames = 18_000;
    scheduler.flush();
    expect(renewals.filter((line) => line.endsWith("(slow)"))).toEqual(["17500 second (slow)"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(keeper.holds("second")).toBe(true);
    keeper.stopHeartbeat();
  });
});

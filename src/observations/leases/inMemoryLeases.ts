// A LeaseStore in memory with the JetStream KV semantics the lease keeper relies on: one revision
// sequence across keys (leases and heartbeats alike), create only when absent, update and remove as
// compare-and-swap, and a watch that replays what is stored and then sees every change in order.
// Local mode's one process is the only holder, so its leases never expire into anyone's hands;
// the engine's lease protocol still runs unchanged over them (and its unit tests run many replicas
// on one store).
import type { Heartbeat, HeartbeatEntry, Lease, LeaseChange, LeaseEntry, LeaseStore, LeaseWatch, LeaseWatchHandlers } from "../../bus/index.js";

export class InMemoryLeaseStore implements LeaseStore {
  private sequence = 0;
  private readonly leases = new Map<string, LeaseEntry>();
  private readonly heartbeats = new Map<string, HeartbeatEntry>();
  private readonly watchers = new Set<LeaseWatchHandlers>();

  async create(observationId: string, lease: Lease): Promise<number | undefined> {
    if (this.leases.has(observationId)) return undefined;
    return this.write(observationId, lease);
  }

  async update(observationId: string, lease: Lease, revision: number): Promise<number | undefined> {
    if (this.leases.get(observationId)?.revision !== revision) return undefined;
    return this.write(observationId, lease);
  }

  async get(observationId: string): Promise<LeaseEntry | undefined> {
    return this.leases.get(observationId);
  }

  async remove(observationId: string, revision: number): Promise<boolean> {
    if (this.leases.get(observationId)?.revision !== revision) return false;
    this.leases.delete(observationId);
    this.sequence += 1;
    this.notify({ observationId });
    return true;
  }

  async beat(heartbeat: Heartbeat, revision?: number): Promise<number | undefined> {
    if (revision !== undefined && this.heartbeats.get(heartbeat.replica)?.revision !== revision) return undefined;
    this.sequence += 1;
    const entry = { heartbeat: { ...heartbeat }, revision: this.sequence };
    this.heartbeats.set(heartbeat.replica, entry);
    for (const watcher of this.watchers) watcher.heartbeat({ replica: heartbeat.replica, entry });
    return this.sequence;
  }

  async getHeartbeat(replica: string): Promise<HeartbeatEntry | undefined> {
    return this.heartbeats.get(replica);
  }

  async watch(handlers: LeaseWatchHandlers): Promise<LeaseWatch> {
    for (const entry of this.leases.values()) handlers.lease({ observationId: entry.observationId, entry });
    for (const [replica, entry] of this.heartbeats) handlers.heartbeat({ replica, entry });
    this.watchers.add(handlers);
    return { stop: () => this.watchers.delete(handlers) };
  }

  /** Every lease stored now. */
  all(): LeaseEntry[] {
    return [...this.leases.values()];
  }

  private write(observationId: string, lease: Lease): number {
    this.sequence += 1;
    const entry = { observationId, lease: { ...lease }, revision: this.sequence };
    this.leases.set(observationId, entry);
    this.notify({ observationId, entry });
    return this.sequence;
  }

  private notify(change: LeaseChange): void {
    for (const watcher of this.watchers) watcher.lease(change);
  }
}

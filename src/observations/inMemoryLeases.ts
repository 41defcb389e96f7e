// A LeaseStore in memory with the JetStream KV semantics the lease keeper relies on: one revision
// sequence across keys, create only when absent, update and remove as compare-and-swap, and a
// watch that replays what is stored and then sees every change in order. Local mode's one
// process is the only holder, so its leases never expire into anyone's hands; the engine's lease
// protocol still runs unchanged over them (and its unit tests run many replicas on one store).
import type { Lease, LeaseChange, LeaseEntry, LeaseStore, LeaseWatch } from "../bus/index.js";

export class InMemoryLeaseStore implements LeaseStore {
  private sequence = 0;
  private readonly leases = new Map<string, LeaseEntry>();
  private readonly watchers = new Set<(change: LeaseChange) => void>();

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

  async watch(onChange: (change: LeaseChange) => void): Promise<LeaseWatch> {
    for (const entry of this.leases.values()) onChange({ observationId: entry.observationId, entry });
    this.watchers.add(onChange);
    return { stop: () => this.watchers.delete(onChange) };
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
    for (const watcher of this.watchers) watcher(change);
  }
}

// The leases this replica holds, one per observation it drives (SPEC section 10). It creates them
// for new observations, takes expired or released ones for adoption, renews them on a heartbeat,
// and says at once when one is lost, so the engine stops driving that observation.
//
// Each lease is renewed a renewal interval after it was last written, not all of them on one
// beat: the heartbeat ticks ten times an interval and renews those due. Observations begin at
// different moments, so their renewals spread over the interval instead of arriving at NATS as
// one burst of a thousand compare-and-swaps every few seconds, which a verdict's own terminal
// write would queue behind. A lease still sees its holder's write at least every
// renewEveryMs + one tick, well inside its duration (three intervals).
//
// A lease is lost when a renewal's compare-and-swap finds another revision (someone took it), or
// when the shared lease watch shows it held by another replica or removed (a cancel through the
// record by another replica). A renewal that fails for want of NATS is not a loss: nobody else can
// take the lease while NATS is away either, and the next renewal that reaches it settles the
// question by its compare-and-swap.
import type { Logger } from "../logging/index.js";
import { interval, type SchedulerLike, type Subscription } from "rxjs";
import type { LeaseChange, LeaseEntry, LeaseStore } from "../bus/index.js";
import { leaseHeldBy, releasedLease, type LeaseTiming } from "./leasePolicy.js";
import type { LeaseMetrics } from "./telemetry.js";

export interface LeaseKeeperOptions {
  readonly store: LeaseStore;
  /** This replica's id: in every lease it writes and in its logs. */
  readonly replicaId: string;
  readonly timing: LeaseTiming;
  readonly scheduler: SchedulerLike;
  readonly metrics: LeaseMetrics;
  readonly logger: Logger;
}

export class LeaseExistsError extends Error {
  override readonly name = "LeaseExistsError";
}

export class LeaseKeeper {
  private readonly options: LeaseKeeperOptions;
  /** Observation id to the revision this replica wrote last. */
  private readonly held = new Map<string, number>();
  /** Observation id to when this replica wrote it last (scheduler time): when its renewal is due. */
  private readonly writtenAt = new Map<string, number>();
  /** Renewals in flight: a slow one is not sent again on the next tick. */
  private readonly renewing = new Set<string>();
  /** Leases being created here: held as far as the adopter is concerned, before the create is acknowledged. */
  private readonly creating = new Set<string>();
  /** When this process began: a lease under this id written earlier is a previous incarnation's. */
  readonly since: number;
  private readonly lostHandlers: ((observationId: string) => void)[] = [];
  private heartbeat: Subscription | undefined;

  constructor(options: LeaseKeeperOptions) {
    this.options = options;
    this.since = options.scheduler.now();
  }

  get replicaId(): string {
    return this.options.replicaId;
  }

  get count(): number {
    return this.held.size;
  }

  holds(observationId: string): boolean {
    return this.held.has(observationId) || this.creating.has(observationId);
  }

  heldIds(): string[] {
    return [...this.held.keys()];
  }

  /** Called with the id of each lease lost; the engine drops that observation without a verdict. */
  onLost(handler: (observationId: string) => void): void {
    this.lostHandlers.push(handler);
  }

  startHeartbeat(): void {
    const tickMs = Math.max(10, Math.floor(this.options.timing.renewEveryMs / 10));
    this.heartbeat ??= interval(tickMs, this.options.scheduler).subscribe(() => void this.renewDue());
  }

  stopHeartbeat(): void {
    this.heartbeat?.unsubscribe();
    this.heartbeat = undefined;
  }

  /** The lease of an observation this replica creates; its id is new, so a lease in place is a bug or a replayed id. */
  async create(observationId: string): Promise<void> {
    this.creating.add(observationId);
    try {
      const at = this.now();
      const revision = await this.options.store.create(observationId, this.lease(at));
      if (revision === undefined) throw new LeaseExistsError(`observation ${observationId} already has a lease`);
      this.hold(observationId, revision, at);
    } finally {
      this.creating.delete(observationId);
    }
  }

  /** Takes `entry` from its holder if nobody wrote it since it was read; false when another replica was first. */
  async take(entry: LeaseEntry): Promise<boolean> {
    const at = this.now();
    const revision = await this.options.store.update(entry.observationId, this.lease(at), entry.revision);
    if (revision === undefined) return false;
    this.hold(entry.observationId, revision, at);
    return true;
  }

  /** Hands a lease back (shutdown): another replica adopts at once instead of after expiry. */
  async release(observationId: string): Promise<void> {
    const revision = this.forget(observationId);
    if (revision === undefined) return;
    try {
      await this.options.store.update(observationId, releasedLease(this.replicaId, this.now()), revision);
    } catch (error) {
      this.options.logger.warn({ observationId, replica: this.replicaId, err: error }, "cannot release lease; it expires instead");
    }
  }

  /** The observation is decided and its verdict published: nothing is left to adopt. */
  async remove(observationId: string): Promise<void> {
    const revision = this.forget(observationId);
    if (revision === undefined) return;
    try {
      if (!(await this.options.store.remove(observationId, revision))) {
        this.options.logger.warn({ observationId, replica: this.replicaId }, "lease changed before removal; left to its new holder");
      }
    } catch (error) {
      this.options.logger.warn({ observationId, replica: this.replicaId, err: error }, "cannot remove lease; its next holder will");
    }
  }

  /**
   * Ends the lease of an observation decided here through its record while another replica (or
   * nobody) held it: its holder sees the removal on the lease watch and stops driving it.
   */
  async removeWhoeverHolds(observationId: string): Promise<void> {
    this.forget(observationId);
    for (let round = 0; round < 5; round++) {
      const entry = await this.options.store.get(observationId);
      if (entry === undefined || (await this.options.store.remove(observationId, entry.revision))) return;
    }
    this.options.logger.warn({ observationId, replica: this.replicaId }, "lease kept changing; its holder finds the record decided on its next write");
  }

  /** Stops holding without writing (the observation went to another replica). */
  forget(observationId: string): number | undefined {
    const revision = this.held.get(observationId);
    if (revision === undefined) return undefined;
    this.held.delete(observationId);
    this.writtenAt.delete(observationId);
    this.options.metrics.leasesHeld(this.held.size);
    return revision;
  }

  /** A change seen on the shared lease watch: a lease held here that another replica wrote, or removed, is lost. */
  noteChange(change: LeaseChange): void {
    const revision = this.held.get(change.observationId);
    if (revision === undefined) return;
    const entry = change.entry;
    if (entry !== undefined && entry.lease.holder === this.replicaId && !entry.lease.released) return;
    if (entry !== undefined && entry.revision <= revision) return;
    this.lose(change.observationId, entry === undefined ? "removed" : `held by ${entry.lease.holder}`);
  }

  /** Renews every lease now (NATS came back: what was due meanwhile is renewed at once). */
  async renewAll(): Promise<void> {
    await Promise.all(this.heldIds().map((id) => this.renew(id)));
  }

  /** Renews the leases written a renewal interval ago or longer. */
  private async renewDue(): Promise<void> {
    const due = this.now() - this.options.timing.renewEveryMs;
    await Promise.all(this.heldIds().flatMap((id) => (!this.renewing.has(id) && (this.writtenAt.get(id) ?? 0) <= due ? [this.renew(id)] : [])));
  }

  private async renew(observationId: string): Promise<void> {
    const revision = this.held.get(observationId);
    if (revision === undefined) return;
    let next: number | undefined;
    const at = this.now();
    this.renewing.add(observationId);
    try {
      next = await this.options.store.update(observationId, this.lease(at), revision);
    } catch (error) {
      this.options.metrics.leaseRenewalFailed();
      this.options.logger.warn({ observationId, replica: this.replicaId, err: error }, "lease renewal failed; retrying on the next heartbeat");
      return;
    } finally {
      this.renewing.delete(observationId);
    }
    if (this.held.get(observationId) !== revision) return;
    if (next === undefined) {
      this.options.metrics.leaseRenewalFailed();
      this.lose(observationId, "renewal found another revision");
    } else this.hold(observationId, next, at);
  }

  private lose(observationId: string, why: string): void {
    this.forget(observationId);
    this.options.logger.warn({ observationId, replica: this.replicaId, why }, "lease lost; no longer driving the observation");
    for (const handler of this.lostHandlers) handler(observationId);
  }

  /** `at`: when the lease written was computed, from which its expiry counts. */
  private hold(observationId: string, revision: number, at: number): void {
    this.held.set(observationId, revision);
    this.writtenAt.set(observationId, at);
    this.options.metrics.leasesHeld(this.held.size);
  }

  private lease(at: number) {
    return leaseHeldBy(this.replicaId, at, this.options.timing);
  }

  private now(): number {
    return this.options.scheduler.now();
  }
}

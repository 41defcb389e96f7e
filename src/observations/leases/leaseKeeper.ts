// The leases this replica holds, one per observation it drives (SPEC section 10), and the one
// heartbeat that keeps them all. It creates leases for new observations and takes expired or
// released ones for adoption, each written once, naming this replica and its incarnation; then
// it writes its heartbeat every renewal interval, one KV write whatever it holds, and says at once
// when a lease is lost, so the engine stops driving that observation.
//
// Why this keeps what renewing every lease kept:
// - Never two drivers. Others read a lease as held while its own term or this replica's heartbeat
//   of the incarnation that wrote it is fresh (`leaseHeldUntil`). If the heartbeat cannot be
//   stored, this replica stops driving everything a tick before its last stored heartbeat expires
//   (`heartbeatLapsesAt`): it counts every lease lost and becomes a new incarnation, so that its
//   next heartbeat, once NATS answers, keeps none of the old leases alive: they are free to
//   whoever takes them first (this replica included), by compare-and-swap on each lease as before.
//   A lease another replica took, or removed (a cancel through the record), is seen on the shared
//   lease watch and lost at once; the record's compare-and-swap fences a driver that has not seen
//   it yet, as before.
// - A crash is adopted within the same bound: the last heartbeat and every lease term expire at
//   most one lease duration after the last write.
// - NATS away for less than that: nothing is lost, as before; nobody else can take a lease while
//   NATS is away, and the heartbeat written when it returns settles it (`beatNow`).
// - A restart under the same id is another incarnation: its first heartbeat replaces the old one,
//   which then keeps nothing alive, and it takes its previous incarnation's leases back at once.
import { randomUUID } from "node:crypto";
import type { Logger } from "../../logging/index.js";
import { interval, type SchedulerLike, type Subscription } from "rxjs";
import type { LeaseChange, LeaseEntry, LeaseStore } from "../../bus/index.js";
import { heartbeatLapsesAt, heartbeatOf, heartbeatTickMs, leaseHeldBy, releasedLease, type LeaseHolder, type LeaseTiming } from "./leasePolicy.js";
import type { LeaseMetrics } from "../telemetry.js";

export interface LeaseKeeperOptions {
  readonly store: LeaseStore;
  /** This replica's id: in every lease and heartbeat it writes and in its logs. */
  readonly replicaId: string;
  readonly timing: LeaseTiming;
  readonly scheduler: SchedulerLike;
  readonly metrics: LeaseMetrics;
  readonly logger: Logger;
  /** A new incarnation's id; a random UUID when absent. */
  readonly newIncarnation?: () => string;
}

export class LeaseExistsError extends Error {
  override readonly name = "LeaseExistsError";
}

/** The heartbeat lapsed while a lease was being created: it names an incarnation this process no longer is. */
export class LeaseLapsedError extends Error {
  override readonly name = "LeaseLapsedError";
}

export class LeaseKeeper {
  private readonly options: LeaseKeeperOptions;
  private readonly newIncarnation: () => string;
  /** Observation id to the revision this replica wrote, and the observation's tenant (carried by every write of the lease). */
  private readonly held = new Map<string, { revision: number; tenant: string | undefined }>();
  /** Leases being created here: held as far as the adopter is concerned, before the create is acknowledged. */
  private readonly creating = new Set<string>();
  /** Every incarnation of this process: a heartbeat found with one of them was written here. */
  private readonly incarnations = new Set<string>();
  private readonly lostHandlers: ((observationId: string) => void)[] = [];
  /** When this process began: a lease under this id without an incarnation, written earlier, is a previous process's. */
  readonly since: number;
  private current: string;
  private ticker: Subscription | undefined;
  /** The heartbeat key's revision as written here last; undefined: the next write replaces whatever is there. */
  private beatRevision: number | undefined;
  /** When the newest heartbeat of this incarnation stored was computed; when the incarnation began, before any. */
  private coveredFrom: number;
  private storedThisIncarnation = false;
  private nextBeatAt = Number.NEGATIVE_INFINITY;
  private beating = false;
  private failing = false;

  constructor(options: LeaseKeeperOptions) {
    this.options = options;
    this.newIncarnation = options.newIncarnation ?? randomUUID;
    this.since = options.scheduler.now();
    this.coveredFrom = this.since;
    this.current = this.newIncarnation();
    this.incarnations.add(this.current);
  }

  get replicaId(): string {
    return this.options.replicaId;
  }

  get incarnation(): string {
    return this.current;
  }

  /** This process as the lease rules see it. */
  get holder(): LeaseHolder {
    return { replicaId: this.replicaId, incarnation: this.current, sinceMs: this.since };
  }

  get count(): number {
    return this.held.size;
  }

  /**
   * This incarnation's heartbeat is stored and not about to lapse: what it takes now it can keep.
   * The adopter takes nothing otherwise (while NATS is away, every take would fail anyway).
   */
  get heartbeatFresh(): boolean {
    return this.ticker !== undefined && this.storedThisIncarnation && this.now() < heartbeatLapsesAt(this.coveredFrom, this.options.timing);
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

  /** Writes the first heartbeat (resolved once it is stored or failed; a failure is retried on the next tick), then one every renewal interval. */
  async startHeartbeat(): Promise<void> {
    if (this.ticker) return;
    this.ticker = interval(heartbeatTickMs(this.options.timing), this.options.scheduler).subscribe(() => this.tick());
    await this.beat();
  }

  stopHeartbeat(): void {
    this.ticker?.unsubscribe();
    this.ticker = undefined;
  }

  /** Writes the heartbeat now (NATS came back: a lapse near is put off at once, not on the next interval). */
  async beatNow(): Promise<void> {
    this.nextBeatAt = this.now();
    await this.beat();
  }

  /** The lease of an observation this replica creates (of `tenant`'s); its id is new, so a lease in place is a bug or a replayed id. */
  async create(observationId: string, tenant?: string): Promise<void> {
    this.creating.add(observationId);
    try {
      const incarnation = this.current;
      const revision = await this.options.store.create(observationId, this.lease(tenant));
      if (revision === undefined) throw new LeaseExistsError(`observation ${observationId} already has a lease`);
      // Left to the adopter, which removes a lease without a record.
      if (incarnation !== this.current) throw new LeaseLapsedError(`the heartbeat lapsed while observation ${observationId}'s lease was created`);
      this.hold(observationId, revision, tenant);
    } finally {
      this.creating.delete(observationId);
    }
  }

  /** Takes `entry` from its holder if nobody wrote it since it was read; false when another replica was first. */
  async take(entry: LeaseEntry): Promise<boolean> {
    const incarnation = this.current;
    const { tenant } = entry.lease;
    const revision = await this.options.store.update(entry.observationId, this.lease(tenant), entry.revision);
    if (revision === undefined) return false;
    // Taken under an incarnation that lapsed meanwhile: free again, for this replica's next scan.
    if (incarnation !== this.current) return false;
    this.hold(entry.observationId, revision, tenant);
    return true;
  }

  /** Hands a lease back (shutdown): another replica adopts at once instead of after expiry. */
  async release(observationId: string): Promise<void> {
    const tenant = this.held.get(observationId)?.tenant;
    const revision = this.forget(observationId);
    if (revision === undefined) return;
    try {
      await this.options.store.update(observationId, releasedLease(this.replicaId, this.now(), tenant), revision);
    } catch (error) {
      this.options.logger.warn({ observationId, replica: this.replicaId, err: error }, "cannot release lease; it expires with the heartbeat instead");
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
      this.options.logger.warn({ observationId, replica: this.replicaId, err: error }, "cannot remove lease; this replica takes it back once its term passed");
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
    const held = this.held.get(observationId);
    if (held === undefined) return undefined;
    this.held.delete(observationId);
    this.options.metrics.leasesHeld(this.held.size);
    return held.revision;
  }

  /** A change seen on the shared lease watch: a lease held here that someone else wrote, or removed, is lost. */
  noteChange(change: LeaseChange): void {
    const revision = this.held.get(change.observationId)?.revision;
    if (revision === undefined) return;
    const entry = change.entry;
    if (entry !== undefined && entry.lease.holder === this.replicaId && entry.lease.incarnation === this.current && !entry.lease.released) return;
    if (entry !== undefined && entry.revision <= revision) return;
    this.lose(change.observationId, entry === undefined ? "removed" : `held by ${entry.lease.holder}`);
  }

  private tick(): void {
    const now = this.now();
    if (now >= heartbeatLapsesAt(this.coveredFrom, this.options.timing)) this.lapse();
    if (now >= this.nextBeatAt) void this.beat();
  }

  /** One heartbeat write at a time: a slow one is not sent again on the next tick. */
  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const at = this.now();
    const incarnation = this.current;
    try {
      const revision = await this.options.store.beat(heartbeatOf(this.holder, at, this.options.timing), this.beatRevision);
      if (revision === undefined) return await this.foundAnotherHeartbeat();
      this.beatRevision = revision;
      this.nextBeatAt = at + this.options.timing.renewEveryMs;
      // A write of an incarnation that lapsed while it was in flight covers nothing held now.
      if (incarnation !== this.current) return;
      this.coveredFrom = Math.max(this.coveredFrom, at);
      this.storedThisIncarnation = true;
      if (this.failing) this.options.logger.info({ replica: this.replicaId }, "heartbeat stored again");
      this.failing = false;
    } catch (error) {
      this.options.metrics.leaseRenewalFailed();
      if (!this.failing) this.options.logger.warn({ replica: this.replicaId, leases: this.held.size, err: error }, "heartbeat not stored; retrying every tick");
      this.failing = true;
    } finally {
      this.beating = false;
    }
  }

  /**
   * The heartbeat key holds a revision this replica did not write last. Its own earlier write,
   * stored though its acknowledgement was lost, is simply the newer revision; anything else is
   * another process under this replica id (ids must be unique per process), whose heartbeat may be
   * keeping this replica's leases alive or not: every lease is counted lost.
   */
  private async foundAnotherHeartbeat(): Promise<void> {
    const found = await this.options.store.getHeartbeat(this.replicaId);
    this.beatRevision = found?.revision;
    this.nextBeatAt = this.now();
    if (found === undefined || this.incarnations.has(found.heartbeat.incarnation)) return;
    this.options.metrics.leaseRenewalFailed();
    this.options.logger.error({ replica: this.replicaId, incarnation: found.heartbeat.incarnation }, "another process writes this replica's heartbeat: replica ids must be unique per process");
    this.lapse("another process wrote this replica's heartbeat");
  }

  /** Stops driving everything and becomes a new incarnation: nothing held now is kept alive by a heartbeat again. */
  private lapse(why = "heartbeat not stored for a lease duration"): void {
    this.current = this.newIncarnation();
    this.incarnations.add(this.current);
    this.coveredFrom = this.now();
    this.storedThisIncarnation = false;
    this.nextBeatAt = this.now();
    const ids = this.heldIds();
    if (ids.length > 0) this.options.logger.error({ replica: this.replicaId, leases: ids.length, why }, "every lease counted lost; taken back once the new incarnation's heartbeat is stored");
    for (const id of ids) this.lose(id);
  }

  /** `why` undefined: logged once for all of them. */
  private lose(observationId: string, why?: string): void {
    this.forget(observationId);
    if (why !== undefined) this.options.logger.warn({ observationId, replica: this.replicaId, why }, "lease lost; no longer driving the observation");
    for (const handler of this.lostHandlers) handler(observationId);
  }

  private hold(observationId: string, revision: number, tenant: string | undefined): void {
    this.held.set(observationId, { revision, tenant });
    this.options.metrics.leasesHeld(this.held.size);
  }

  private lease(tenant: string | undefined) {
    return leaseHeldBy(this.holder, this.now(), this.options.timing, tenant);
  }

  private now(): number {
    return this.options.scheduler.now();
  }
}

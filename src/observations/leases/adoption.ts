// Adoption: at start-up and for as long as it runs, each replica takes over observations whose
// lease expired (their driver crashed, froze or lost NATS for longer than the lease: its
// heartbeat stopped) or was released (their driver shut down). It learns of leases and heartbeats
// from one KV watch on the lease bucket, never by listing it: the watch replays every lease and
// heartbeat at start, then each change, and expiries are found by scanning that in-memory table on
// a short interval. The same table answers `list`, so a list costs no consumer and no lease read.
//
// Of several replicas racing for one lease exactly one wins (compare-and-swap on its revision);
// the losers see the winner's write on the watch and leave it. A holder's heartbeat does not
// change its leases' revisions, so that compare-and-swap alone would not notice a watch that lags
// behind a live holder's heartbeats: before taking a lease for its holder's silence, the adopter
// reads that heartbeat afresh (once per holder and scan).
import type { Logger } from "../../logging/index.js";
import { interval, type SchedulerLike, type Subscription } from "rxjs";
import type { Heartbeat, HeartbeatChange, LeaseChange, LeaseEntry, LeaseStore, LeaseTable, LeaseWatch } from "../../bus/index.js";
import type { LeaseKeeper } from "./leaseKeeper.js";
import { adoptionCause, type AdoptionCause, type LeaseTiming } from "./leasePolicy.js";
import type { LeaseMetrics } from "../telemetry.js";

/** What takes an observation over once its lease is won: the engine. */
export interface AdoptingEngine {
  adopt(observationId: string, cause: AdoptionCause): Promise<void>;
}

export interface AdopterOptions {
  readonly store: LeaseStore;
  readonly keeper: LeaseKeeper;
  readonly engine: AdoptingEngine;
  readonly timing: LeaseTiming;
  readonly scheduler: SchedulerLike;
  readonly metrics: LeaseMetrics;
  readonly logger: Logger;
}

/** After an adoption that threw (a record that cannot be read), the lease is left alone this long. */
const failedAdoptionPauseMs = 5_000;

/**
 * Adoptions under way at once; the rest wait their turn. Each is three NATS requests (record,
 * claim, fencing write) and the observation's start: 5,000 started together (a replica handing
 * over) had their answers arrive in a few socket reads, and every answer's continuation of one
 * read ran in one turn of the loop (542 ms at 200,000 pods, bench/scale-curve).
 */
export const maxAdoptionsInFlight = 32;

export class Adopter {
  private readonly options: AdopterOptions;
  private readonly leases = new Map<string, LeaseEntry>();
  /** Replica id to its heartbeat as the watch last showed it. */
  private readonly heartbeats = new Map<string, Heartbeat>();
  /** Heartbeats read afresh during the current scan, by holder. */
  private confirmed = new Map<string, Promise<Heartbeat | undefined>>();
  /** Leases being adopted, or waiting their turn to be. */
  private readonly adopting = new Set<string>();
  /** Adoptions waiting their turn, oldest first from `waitingHead`. */
  private waiting: { entry: LeaseEntry; cause: AdoptionCause }[] = [];
  private waitingHead = 0;
  private inFlight = 0;
  private readonly pausedUntil = new Map<string, number>();
  private watch: LeaseWatch | undefined;
  private scan: Subscription | undefined;
  private stopped = false;

  constructor(options: AdopterOptions) {
    this.options = options;
  }

  async start(): Promise<void> {
    this.watch = await this.options.store.watch({ lease: (change) => this.noteChange(change), heartbeat: (change) => this.noteHeartbeat(change) });
    this.scan = interval(this.options.timing.scanEveryMs, this.options.scheduler).subscribe(() => this.adoptWhatIsFree());
    // What the watch replayed so far is adoptable now; the rest arrives within a scan.
    this.adoptWhatIsFree();
  }

  /** Takes nothing more over (shutdown); adoptions already started finish. */
  stop(): void {
    this.stopped = true;
    this.scan?.unsubscribe();
    this.watch?.stop();
  }

  /** Leases known from the watch, this replica's included. */
  get known(): number {
    return this.leases.size;
  }

  /** The table the watch keeps, read by `list` (src/bus/stores/inProgress.ts) instead of the bucket. */
  readonly table: LeaseTable = {
    leases: () => this.leases.values(),
    heartbeat: (replica) => this.heartbeats.get(replica),
  };

  private noteChange(change: LeaseChange): void {
    if (change.entry === undefined) this.leases.delete(change.observationId);
    else this.leases.set(change.observationId, change.entry);
    this.options.keeper.noteChange(change);
    // This lease alone: a replica handing over 5,000 observations releases 5,000 leases, and a
    // scan of the whole table for each was 25 million looks at leases in bursts of the watch.
    if (change.entry?.lease.released && this.mayAdopt()) this.adoptIfFree(change.entry, this.options.scheduler.now());
  }

  /** A restart under the same id frees its previous incarnation's leases now, not at the next scan. */
  private noteHeartbeat(change: HeartbeatChange): void {
    const before = this.heartbeats.get(change.replica);
    if (change.entry === undefined) this.heartbeats.delete(change.replica);
    else this.heartbeats.set(change.replica, change.entry.heartbeat);
    if (before !== undefined && change.entry !== undefined && before.incarnation !== change.entry.heartbeat.incarnation) this.adoptWhatIsFree();
  }

  /** Takes nothing while this replica's own heartbeat is not stored: it could not keep what it took. */
  adoptWhatIsFree(): void {
    if (!this.mayAdopt()) return;
    const now = this.options.scheduler.now();
    this.confirmed = new Map();
    for (const entry of this.leases.values()) this.adoptIfFree(entry, now);
  }

  private mayAdopt(): boolean {
    return !this.stopped && this.options.keeper.heartbeatFresh;
  }

  private adoptIfFree(entry: LeaseEntry, now: number): void {
    const id = entry.observationId;
    if (this.adopting.has(id) || (this.pausedUntil.get(id) ?? 0) > now) return;
    const cause = this.causeOf(entry, this.heartbeats.get(entry.lease.holder));
    if (cause === undefined) return;
    this.adopting.add(id);
    this.waiting.push({ entry, cause });
    this.startWaiting();
  }

  /** Starts waiting adoptions while fewer than maxAdoptionsInFlight are under way. */
  private startWaiting(): void {
    while (this.inFlight < maxAdoptionsInFlight && this.waitingHead < this.waiting.length) {
      const { entry, cause } = this.waiting[this.waitingHead]!;
      this.waitingHead += 1;
      if (this.stopped) {
        this.adopting.delete(entry.observationId);
        continue;
      }
      this.inFlight += 1;
      void this.adoptOne(entry, cause).finally(() => {
        this.inFlight -= 1;
        this.startWaiting();
      });
    }
    if (this.waitingHead === this.waiting.length) {
      this.waiting = [];
      this.waitingHead = 0;
    }
  }

  private causeOf(entry: LeaseEntry, heartbeat: Heartbeat | undefined): AdoptionCause | undefined {
    const { keeper, timing, scheduler } = this.options;
    return adoptionCause(entry, heartbeat, keeper.holder, scheduler.now(), keeper.holds(entry.observationId), timing);
  }

  /** Whether `entry` is still free with its holder's heartbeat as stored now, not as the watch showed it. */
  private async stillFree(entry: LeaseEntry): Promise<boolean> {
    const holder = entry.lease.holder;
    let read = this.confirmed.get(holder);
    if (read === undefined) {
      read = this.options.store.getHeartbeat(holder).then((found) => found?.heartbeat);
      this.confirmed.set(holder, read);
    }
    return this.causeOf(entry, await read) !== undefined;
  }

  private async adoptOne(entry: LeaseEntry, cause: AdoptionCause): Promise<void> {
    const id = entry.observationId;
    const { keeper, logger } = this.options;
    try {
      const byHeartbeat = cause === "expired" && entry.lease.holder !== keeper.replicaId && entry.lease.incarnation !== undefined;
      if (byHeartbeat && !(await this.stillFree(entry))) return;
      if (!(await keeper.take(entry))) return;
      this.options.metrics.observationAdopted(cause);
      logger.info({ observationId: id, replica: keeper.replicaId, from: entry.lease.holder, cause }, "lease taken; adopting");
      await this.options.engine.adopt(id, cause);
    } catch (error) {
      this.pausedUntil.set(id, this.options.scheduler.now() + failedAdoptionPauseMs);
      logger.error({ observationId: id, replica: keeper.replicaId, err: error }, "adoption failed; lease handed back");
      if (keeper.holds(id)) await keeper.release(id);
    } finally {
      this.adopting.delete(id);
    }
  }
}

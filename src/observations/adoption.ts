// Adoption: at start-up and for as long as it runs, each replica takes over observations whose
// lease expired (their driver crashed, froze or lost NATS for longer than the lease) or was
// released (their driver shut down). It learns of leases from one KV watch on the lease bucket,
// never by listing it: the watch replays every lease at start, then each change, and expiries are
// found by scanning that in-memory table on a short interval.
//
// Of several replicas racing for one lease exactly one wins (compare-and-swap on its revision);
// the losers see the winner's write on the watch and leave it.
import type { Logger } from "../logging/index.js";
import { interval, type SchedulerLike, type Subscription } from "rxjs";
import type { LeaseChange, LeaseEntry, LeaseStore, LeaseWatch } from "../bus/index.js";
import type { LeaseKeeper } from "./leaseKeeper.js";
import { adoptionCause, type AdoptionCause, type LeaseTiming } from "./leasePolicy.js";
import type { LeaseMetrics } from "./telemetry.js";

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

export class Adopter {
  private readonly options: AdopterOptions;
  private readonly leases = new Map<string, LeaseEntry>();
  private readonly adopting = new Set<string>();
  private readonly pausedUntil = new Map<string, number>();
  private watch: LeaseWatch | undefined;
  private scan: Subscription | undefined;
  private stopped = false;

  constructor(options: AdopterOptions) {
    this.options = options;
  }

  async start(): Promise<void> {
    this.watch = await this.options.store.watch((change) => this.noteChange(change));
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

  private noteChange(change: LeaseChange): void {
    if (change.entry === undefined) this.leases.delete(change.observationId);
    else this.leases.set(change.observationId, change.entry);
    this.options.keeper.noteChange(change);
    if (change.entry?.lease.released) this.adoptWhatIsFree();
  }

  adoptWhatIsFree(): void {
    if (this.stopped) return;
    const now = this.options.scheduler.now();
    const { keeper } = this.options;
    for (const entry of this.leases.values()) {
      const id = entry.observationId;
      if (this.adopting.has(id) || (this.pausedUntil.get(id) ?? 0) > now) continue;
      const cause = adoptionCause(entry, keeper.replicaId, now, keeper.holds(id), keeper.since, this.options.timing);
      if (cause !== undefined) void this.adoptOne(entry, cause);
    }
  }

  private async adoptOne(entry: LeaseEntry, cause: AdoptionCause): Promise<void> {
    const id = entry.observationId;
    const { keeper, logger } = this.options;
    this.adopting.add(id);
    try {
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

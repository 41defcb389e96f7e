// Keeps one observation's KV record in step with its state, for the replica that drives it. The
// record is the journal written before effects: a progress or stage event is published only once
// a record holding it is stored, and `get` answers what is stored, so nothing a client was told
// can be lost by a crash and contradicted by the replica that adopts the observation.
//
// Every write is a compare-and-swap on the revision this writer stored last, so the record is the
// one authority on the outcome: a record another replica changed (it adopted the observation, or
// cancelled it through the record) is never overwritten, and the engine is told it was superseded.
//
// Writes are coalesced: at most one in flight and one waiting behind it, whose content is read
// from the observation when it is written, so a busy rollout costs one KV write (and one verdict
// built) per round trip rather than one per event, whatever the request's size. What a client can
// see change (a resource's state or reason, a stage, the verdict: what publishes an event) is
// written at once; a change of a pending resource's message alone ("3/20 ready" to "4/20 ready",
// a warning's count) waits up to quietWriteIntervalMs and goes out with whatever else changed by
// then (updateLater), so a rollout's writes follow what it reached, not each pod it readied. A
// write that fails
// for want of NATS is retried with backoff until it is stored or superseded: what was decided
// while NATS was away is stored, then published, when it returns.
import type { Logger } from "../../logging/index.js";
import type { ObservationRecord, ObservationRecords, StoredRecord } from "../../bus/index.js";
import type { ObservationVerdict, Timeline } from "../../verdicts/index.js";

export type RecordContent = { verdict: ObservationVerdict; labelledBootstrap: string[]; timeline: Timeline };
export type DecideResult = { stored: true } | { stored: false; current: StoredRecord | undefined };

export interface RecordWriterOptions {
  readonly records: ObservationRecords;
  readonly logger: Logger;
  /** This replica's id, written as the record's owner. */
  readonly owner: string;
  readonly initial: StoredRecord;
  /** The observation's content as it stands now; read when a write goes out, not when it is asked for. */
  readonly content: () => RecordContent;
  /** Another replica changed the record: the engine stops driving the observation. */
  readonly onSuperseded: (current: StoredRecord | undefined) => void;
  /** The record as it may be stored: under the server's max_payload (recordCompaction's fitRecord). Default: as it is. */
  readonly fit?: (record: ObservationRecord) => ObservationRecord;
  /** Waits between attempts; tests pass one that returns at once. */
  readonly delay?: (ms: number) => Promise<void>;
  /** Runs `work` once after `ms` (updateLater's wait) unless unsubscribed; the engine passes its scheduler's. */
  readonly schedule?: (work: () => void, ms: number) => { unsubscribe(): void };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const afterTimeout = (work: () => void, ms: number) => {
  const timer = setTimeout(work, ms);
  return { unsubscribe: () => clearTimeout(timer) };
};

/**
 * The longest a message-only change waits for its write. `get` (and `stagewatch list`) answer from
 * the record, so this is how stale a pending resource's counts can look there: 2 s is `watch(1)`'s
 * default refresh, what a person polling a rollout expects. A hand-over loses nothing by it: an
 * adopter reads pending resources afresh from its informers. It bounds the quiet writes of 10,000
 * observations in flight to 5,000 a second, against one per watch event before.
 */
export const quietWriteIntervalMs = 2_000;
const retryDelaysMs = [250, 500, 1_000, 2_000, 5_000];

interface Waiting {
  /** Resolved with true once stored, false when the record went elsewhere. */
  done: ((stored: boolean) => void)[];
}

type WriteResult = { written: true } | { written: false; ours: boolean; current: StoredRecord | undefined };

export class RecordWriter {
  private readonly options: RecordWriterOptions;
  private stored: StoredRecord;
  private inFlight: Promise<void> | undefined;
  private waiting: Waiting | undefined;
  private ended = false;
  /** Writes wait for decide(): the observation is decided, its final content still being completed. */
  private held = false;
  private supersededBy: StoredRecord | undefined;
  /** updateLater's pending write, until it goes out or a write carries its change sooner. */
  private later: { unsubscribe(): void } | undefined;

  constructor(options: RecordWriterOptions) {
    this.options = options;
    this.stored = options.initial;
  }

  /** The verdict as last stored: what `get` answers and what an adopter would resume from. */
  get storedVerdict(): ObservationVerdict | undefined {
    return this.stored.record.verdict;
  }

  /** The observation changed: queues a write; resolves true once a record holding this change (or a later one) is stored. */
  update(): Promise<boolean> {
    this.cancelLater();
    if (this.ended) return Promise.resolve(false);
    const done = new Promise<boolean>((resolve) => {
      this.waiting = { done: [...(this.waiting?.done ?? []), resolve] };
    });
    if (!this.held) this.inFlight ??= this.drain();
    return done;
  }

  /**
   * A change no client sees at once (a pending resource's message): written within
   * quietWriteIntervalMs, by its own write or by any write that goes out before. A write already
   * waiting reads the content when it goes out, so it carries this change too.
   */
  updateLater(): void {
    if (this.ended || this.held || this.later !== undefined || this.waiting !== undefined) return;
    this.later = (this.options.schedule ?? afterTimeout)(() => {
      this.later = undefined;
      void this.update();
    }, quietWriteIntervalMs);
  }

  /** A change waiting for its quiet write goes out now (hand-over: what was read is stored before the lease goes back). */
  flushLater(): void {
    if (this.later !== undefined) void this.update();
  }

  /** Forgets the quiet write waiting (the replica stops: a crash would lose it too; an adopter reads afresh). */
  cancelLater(): void {
    this.later?.unsubscribe();
    this.later = undefined;
  }

  /** Resolves when nothing is in flight or waiting. */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** No more writes: the observation went to another replica. Waiting writes resolve false. */
  abandon(): void {
    this.ended = true;
    this.cancelLater();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.done.forEach((resolve) => resolve(false));
  }

  /**
   * The observation is decided but its verdict is still being completed (the failing container's
   * log tail): no write goes out until decide(), so no record holds the verdict without it. A
   * write in flight finishes; what waits is written by decide(), coalesced with it.
   */
  hold(): void {
    this.held = true;
    this.cancelLater();
  }

  /** The terminal write (the observation is decided, so its content no longer changes): stored, or superseded by another replica's write. */
  async decide(): Promise<DecideResult> {
    this.held = false;
    const stored = await this.update();
    await this.idle();
    return stored ? { stored: true } : { stored: false, current: this.supersededBy };
  }

  private async drain(): Promise<void> {
    for (let failures = 0; this.waiting !== undefined && !this.ended && !this.held; ) {
      const waiting = this.waiting;
      this.waiting = undefined;
      let result: WriteResult | undefined;
      try {
        result = await this.writeOnce(this.options.content());
      } catch (error) {
        failures += 1;
        if (failures === 1 || failures % 10 === 0) {
          this.options.logger.warn({ observationId: this.stored.record.observationId, err: error, failures }, "cannot store the observation record yet; retrying");
        }
      }
      if (result?.written) {
        failures = 0;
        waiting.done.forEach((resolve) => resolve(true));
        continue;
      }
      if (result && !result.ours) {
        this.supersede(result.current);
        waiting.done.forEach((resolve) => resolve(false));
        break;
      }
      // Not stored yet (NATS away, or our own earlier write's acknowledgement lost): try again,
      // with the content as it stands then.
      const newer = this.waiting as Waiting | undefined;
      this.waiting = { done: [...waiting.done, ...(newer?.done ?? [])] };
      if (!result) await (this.options.delay ?? sleep)(retryDelaysMs[Math.min(failures - 1, retryDelaysMs.length - 1)]!);
    }
    if (this.ended) this.abandon();
    this.inFlight = undefined;
  }

  private supersede(current: StoredRecord | undefined): void {
    if (this.ended) return;
    this.supersededBy = current;
    this.abandon();
    this.options.onSuperseded(current);
  }

  /**
   * One compare-and-swap. A conflict with a record this replica still owns, in progress, is its
   * own earlier write whose acknowledgement was lost: its revision is taken for the retry.
   */
  private async writeOnce(content: RecordContent): Promise<WriteResult> {
    const whole: ObservationRecord = {
      ...this.stored.record,
      outcome: content.verdict.outcome,
      verdict: content.verdict,
      owner: this.options.owner,
      labelledBootstrap: content.labelledBootstrap,
      timeline: content.timeline,
    };
    const record = this.options.fit?.(whole) ?? whole;
    const update = await this.options.records.updateRecord(record, this.stored.revision);
    if (update.updated) {
      this.stored = { record, revision: update.revision };
      return { written: true };
    }
    const current = update.current;
    const ours = current !== undefined && current.record.owner === this.options.owner && current.record.outcome === "in_progress";
    if (ours) this.stored = current;
    return { written: false, ours, current };
  }
}

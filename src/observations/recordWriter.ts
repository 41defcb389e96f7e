// Keeps one observation's KV record in step with its state, for the replica that drives it. Every
// write is a compare-and-swap on the revision this writer stored last, so the record is the one
// authority on the outcome: a record another replica changed (it adopted the observation, or
// cancelled it through the record) is never overwritten, and the engine is told it was superseded.
//
// Progress writes are coalesced: at most one in flight, and only the newest waiting behind it, so
// a busy rollout costs one KV write per round trip rather than one per event. A progress write
// that fails for want of NATS is left to the next one. The terminal write is retried until it is
// stored or superseded: a verdict decided while NATS is away is stored when it returns.
import type { ObservationRecord, ObservationRecords, StoredRecord } from "../bus/index.js";
import type { ObservationVerdict } from "../verdicts/index.js";
import type { EngineLogger } from "./telemetry.js";

export type RecordContent = { verdict: ObservationVerdict; labelledBootstrap: string[] };
export type DecideResult = { stored: true } | { stored: false; current: StoredRecord | undefined };

export interface RecordWriterOptions {
  readonly records: ObservationRecords;
  readonly logger: EngineLogger;
  /** This replica's id, written as the record's owner. */
  readonly owner: string;
  readonly initial: StoredRecord;
  /** Another replica changed the record: the engine stops driving the observation. */
  readonly onSuperseded: (current: StoredRecord | undefined) => void;
  /** Waits between attempts of the terminal write; tests pass one that returns at once. */
  readonly delay?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const retryDelaysMs = [250, 500, 1_000, 2_000, 5_000];

export class RecordWriter {
  private readonly options: RecordWriterOptions;
  private stored: StoredRecord;
  private inFlight: Promise<void> | undefined;
  private waiting: RecordContent | undefined;
  private ended = false;

  constructor(options: RecordWriterOptions) {
    this.options = options;
    this.stored = options.initial;
  }

  get record(): ObservationRecord {
    return this.stored.record;
  }

  /** Queues a progress write of the newest content; earlier queued content is dropped. */
  update(content: RecordContent): void {
    if (this.ended) return;
    this.waiting = content;
    this.inFlight ??= this.drain();
  }

  /** Resolves when no progress write is in flight or waiting. */
  async idle(): Promise<void> {
    while (this.inFlight) await this.inFlight;
  }

  /** No more writes: the observation went to another replica. */
  abandon(): void {
    this.ended = true;
    this.waiting = undefined;
  }

  /** The terminal write, after any progress write in flight: stored, or superseded by another replica's write. */
  async decide(content: RecordContent): Promise<DecideResult> {
    this.waiting = undefined;
    await this.idle();
    for (let attempt = 0; !this.ended; attempt++) {
      try {
        const result = await this.writeOnce(content);
        if (result.written) return { stored: true };
        if (!result.retry) return { stored: false, current: result.current };
      } catch (error) {
        this.options.logger.warn({ observationId: content.verdict.observationId, err: error, attempt }, "cannot store the verdict yet; retrying");
        await (this.options.delay ?? sleep)(retryDelaysMs[Math.min(attempt, retryDelaysMs.length - 1)]!);
      }
    }
    return { stored: false, current: undefined };
  }

  private async drain(): Promise<void> {
    while (this.waiting !== undefined && !this.ended) {
      const content = this.waiting;
      this.waiting = undefined;
      try {
        const result = await this.writeOnce(content);
        if (!result.written && !result.retry) this.supersede(result.current);
      } catch (error) {
        this.options.logger.warn({ observationId: content.verdict.observationId, err: error }, "cannot store the observation record; the next write carries it");
      }
    }
    this.inFlight = undefined;
  }

  private supersede(current: StoredRecord | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.options.onSuperseded(current);
  }

  /**
   * One compare-and-swap. A conflict with a record this replica still owns, in progress, is its
   * own earlier write whose acknowledgement was lost: the revision is taken and the write retried.
   */
  private async writeOnce(
    content: RecordContent,
  ): Promise<{ written: true } | { written: false; retry: boolean; current: StoredRecord | undefined }> {
    const record: ObservationRecord = {
      ...this.stored.record,
      outcome: content.verdict.outcome,
      verdict: content.verdict,
      owner: this.options.owner,
      labelledBootstrap: content.labelledBootstrap,
    };
    const update = await this.options.records.updateRecord(record, this.stored.revision);
    if (update.updated) {
      this.stored = { record, revision: update.revision };
      return { written: true };
    }
    const current = update.current;
    const ours = current !== undefined && current.record.owner === this.options.owner && current.record.outcome === "in_progress";
    if (ours) this.stored = current;
    return { written: false, retry: ours, current };
  }
}

// One observation this replica drives, and everything that lives only while it does: its record
// writer, its budget timer, its stall watch, and its subscriptions to the informers' synced and
// refused signals. Its phase answers the one question every callback asks first, "is this still
// mine to drive?":
// - driving: readings, timers and stall notices go to it;
// - deciding: the reducer decided; the verdict is being completed (log tail), stored and published;
// - left: it went to another replica (lease lost, record superseded, hand-over); no verdict from here.
// Leaving `driving` ends every timer and subscription at once; the record writer is the one thing
// that outlives it (a decided verdict must still be stored, a hand-over still stores what was read).
import type { SchedulerLike, Subscription } from "rxjs";
import type { ObservationRecords, StoredRecord } from "../bus/index.js";
import type { Logger } from "../logging/index.js";
import type { ServiceSigner } from "../signing/index.js";
import { labelledBootstrapKeys, nextWakeAt, toVerdict, type ObservationState, type ObservationVerdict } from "../verdicts/index.js";
import type { Release } from "./admission.js";
import { fitRecord } from "./recordCompaction.js";
import { RecordWriter } from "./recordWriter.js";
import { StallWatch } from "./stallWatch.js";
import { timerDelay } from "./timerDelay.js";

export type LivePhase = "driving" | "deciding" | "left";

export interface LiveObservationOptions {
  readonly state: ObservationState;
  /** The record as stored, with its revision: the writer's compare-and-swap is fenced by it. */
  readonly stored: StoredRecord;
  readonly records: ObservationRecords;
  /** Signs the verdict of every record write: `get` answers from the record, and an adopter republishes from it. */
  readonly signer: ServiceSigner;
  readonly logger: Logger;
  /** This replica's id, written as the record's owner. */
  readonly owner: string;
  readonly scheduler: SchedulerLike;
  /** Another replica changed the record: it decided or adopted the observation. */
  readonly onSuperseded: (current: StoredRecord | undefined) => void;
  /** The most a record may hold (the server's max_payload less headers): a larger one is compacted. */
  readonly maxRecordBytes: number;
  /** Ends the observation's count in admission, once it is no longer driven here. */
  readonly release: Release;
}

export class LiveObservation {
  state: ObservationState;
  readonly record: RecordWriter;
  /** The request's `logs`: a failure reads the failing container's log tail. */
  readonly logs: boolean;
  /** Ends its count in admission (idempotent): called once it is no longer driven here. */
  readonly release: Release;
  /** The decided verdict with its failure's log tail, once read, signed: what the terminal write stores and delivery publishes. */
  decided: ObservationVerdict | undefined;
  /** Once deciding: resolves with the verdict that stands once stored. */
  delivery: Promise<ObservationVerdict | undefined> | undefined;
  private currentPhase: LivePhase = "driving";
  private readonly scheduler: SchedulerLike;
  private readonly stallMs: number;
  private stall: StallWatch | undefined;
  private timer: Subscription | undefined;
  private wakeAt: number | undefined;
  private readonly subscriptions: Subscription[] = [];

  constructor(options: LiveObservationOptions) {
    this.state = options.state;
    this.scheduler = options.scheduler;
    const { request } = options.stored.record;
    this.logs = request.logs === true;
    this.release = options.release;
    this.stallMs = request.stallSeconds * 1000;
    this.record = new RecordWriter({
      records: options.records,
      logger: options.logger,
      owner: options.owner,
      initial: options.stored,
      // The state as it stands when the write goes out: a step replaces the state, so it is read through `this`.
      content: () => ({ verdict: this.decided ?? options.signer.sign(toVerdict(this.state)), labelledBootstrap: labelledBootstrapKeys(this.state) }),
      onSuperseded: options.onSuperseded,
      fit: (record) => fitRecord(record, options.maxRecordBytes, options.signer.sign),
      // Retries wait on the engine's clock: virtual time in tests.
      delay: (ms) => new Promise<void>((resolve) => this.scheduler.schedule(() => resolve(), ms)),
      schedule: (work, ms) => this.scheduler.schedule(work, ms),
    });
  }

  get id(): string {
    return this.state.observationId;
  }

  get phase(): LivePhase {
    return this.currentPhase;
  }

  /** Still driven here: neither decided nor gone to another replica. */
  get driving(): boolean {
    return this.currentPhase === "driving";
  }

  /** Stall notices from now on (stallSeconds of the request; none when 0). */
  watchForStalls(onStall: (quietMs: number) => void): void {
    if (this.driving) this.stall ??= new StallWatch(this.stallMs, this.scheduler, onStall);
  }

  /** Something moved: the stall watch's quiet time starts again. */
  moved(): void {
    this.stall?.moved();
  }

  /** Kept until the observation stops being driven; ended at once if it already has. */
  keep(subscription: Subscription): void {
    if (this.driving) this.subscriptions.push(subscription);
    else subscription.unsubscribe();
  }

  /** One timer at the reducer's nextWakeAt (budget, absence grace), set again only when that moment changes. */
  schedule(wake: () => void): void {
    const wakeAt = this.driving ? nextWakeAt(this.state) : undefined;
    if (wakeAt === this.wakeAt) return;
    this.timer?.unsubscribe();
    this.wakeAt = wakeAt;
    if (wakeAt === undefined) return;
    this.timer = this.scheduler.schedule(() => {
      this.wakeAt = undefined;
      if (this.driving) wake();
    }, timerDelay(wakeAt, this.scheduler.now()));
  }

  /** Leaves `driving` for `phase`: no reading, timer or stall notice reaches it any more. */
  stopDriving(phase: Exclude<LivePhase, "driving">): void {
    if (!this.driving) return;
    this.currentPhase = phase;
    this.stall?.stop();
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.wakeAt = undefined;
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
  }
}

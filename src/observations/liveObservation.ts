// One observation this replica drives, and everything that lives only while it does: its record
// writer, its budget timer, its stall watch, and its subscriptions to the informers' synced and
// refused signals. Its phase answers the one question every callback asks first, "is this still
// mine to drive?":
// - driving: readings, timers and stall notices go to it;
// - deciding: the reducer decided; the verdict is being completed (log tail), stored and published;
// - left: it went to another replica (lease lost, record superseded, hand-over); no verdict from here.
// Leaving `driving` ends every timer (the budget's, each analysis's next measurement) and
// subscription at once; the record writer is the one thing
// that outlives it (a decided verdict must still be stored, a hand-over still stores what was read).
import type { SchedulerLike, Subscription } from "rxjs";
import type { ObservationRecords, StoredRecord } from "../bus/index.js";
import type { Logger } from "../logging/index.js";
import type { ServiceSigner } from "../signing/index.js";
import {
  autoStallThreshold,
  defaultStallSeconds,
  emptyTimeline,
  labelledBootstrapKeys,
  nextWakeAt,
  stageRank,
  stages,
  toVerdict,
  Timeline,
  type DueMeasurement,
  type MeasuredValue,
  type ObservationRequest,
  type ObservationState,
  type ObservationVerdict,
  type Stage,
} from "../verdicts/index.js";
import type { Release } from "./admission/admission.js";
import { fitRecord } from "./records/recordCompaction.js";
import type { QuietWrites } from "./records/quietWrites.js";
import { RecordWriter } from "./records/recordWriter.js";
import { StageOverrunWatch, type StageOverrun } from "./timers/stageOverrunWatch.js";
import { StallWatch } from "./timers/stallWatch.js";
import { timerDelay } from "./timers/timerDelay.js";

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
  /** Where its quiet record writes wait: the engine's one queue for every observation (quietWrites.ts). */
  readonly quietWrites: QuietWrites;
}

export class LiveObservation {
  state: ObservationState;
  readonly record: RecordWriter;
  /** What was asked, as the record holds it. */
  readonly request: ObservationRequest;
  /** The request's `logs`: a failure reads the failing container's log tail. */
  readonly logs: boolean;
  /** Ends its count in admission (idempotent): called once it is no longer driven here. */
  readonly release: Release;
  /** The decided verdict with its failure's log tail, once read, signed: what the terminal write stores and delivery publishes. */
  decided: ObservationVerdict | undefined;
  /** When its stages were reached and its resources decided, resumed from the record (an adopter carries it on). */
  readonly timeline: Timeline;
  /**
   * Whether the informers of what a workload of `kind` owns (its Pods, a Deployment's ReplicaSets)
   * have listed: until then a workload read settled waits (awaitingOwnedObjects), its evidence not
   * in the caches yet. No until its informers are known (a read can come sooner, through another
   * observation's).
   */
  ownedListed: (kind: string) => boolean = () => false;
  /** Once deciding: resolves with the verdict that stands once stored. */
  delivery: Promise<ObservationVerdict | undefined> | undefined;
  private currentPhase: LivePhase = "driving";
  private readonly scheduler: SchedulerLike;
  private readonly stallSetting: number | "auto";
  private stall: StallWatch | undefined;
  private overrun: StageOverrunWatch | undefined;
  private timer: Subscription | undefined;
  private wakeAt: number | undefined;
  private readonly subscriptions: Subscription[] = [];
  /** Each analysis's next measurement: its timer, or "taking" while its query is out. */
  private readonly measurements = new Map<string, Subscription | "taking">();

  constructor(options: LiveObservationOptions) {
    this.state = options.state;
    this.scheduler = options.scheduler;
    const { request, timeline } = options.stored.record;
    this.request = request;
    this.logs = request.logs === true;
    this.release = options.release;
    this.stallSetting = request.stallSeconds;
    // A copy: the timeline is written in place as the observation goes, the stored record must not change under the writer.
    this.timeline = timeline ? Timeline.parse(structuredClone(timeline)) : emptyTimeline();
    this.record = new RecordWriter({
      records: options.records,
      logger: options.logger,
      owner: options.owner,
      initial: options.stored,
      // The state as it stands when the write goes out: a step replaces the state, so it is read through `this`.
      content: () => ({
        verdict: this.decided ?? options.signer.signVerdict(toVerdict(this.state)),
        labelledBootstrap: labelledBootstrapKeys(this.state),
        timeline: this.timeline,
      }),
      onSuperseded: options.onSuperseded,
      fit: (record) => fitRecord(record, options.maxRecordBytes, options.signer.signVerdict),
      // Retries wait on the engine's clock: virtual time in tests.
      delay: (ms) => new Promise<void>((resolve) => this.scheduler.schedule(() => resolve(), ms)),
      schedule: (work, ms) => options.quietWrites.schedule(work, ms),
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

  /**
   * Stall notices from now on: after stallSeconds of quiet (none when 0), or with `auto` once the
   * stage waited for takes longer than the deployment's earlier rollouts did. A deployment without
   * enough history for any stage to be judged that way gets the default quiet time instead.
   */
  watchForStalls(onStall: (quietMs: number) => void, onOverrun: (overrun: StageOverrun) => void): void {
    if (!this.driving || this.stall || this.overrun) return;
    if (this.stallSetting !== "auto") {
      this.stall = new StallWatch(this.stallSetting * 1000, this.scheduler, onStall);
      return;
    }
    const thresholdOf = (stage: Stage) => autoStallThreshold(this.state.outlook, stage);
    if (!stages.some((stage) => stageRank(stage) <= stageRank(this.state.required) && thresholdOf(stage))) {
      this.stall = new StallWatch(defaultStallSeconds * 1000, this.scheduler, onStall);
      return;
    }
    this.overrun = new StageOverrunWatch(this.scheduler, this.state.startedAtMs, thresholdOf, onOverrun);
    this.stageChanged();
  }

  /**
   * The observation reached a stage: an auto stall watch aims at the next one. Not at `verified`:
   * the window takes the time the request gave it, and a quiet window is the point.
   */
  stageChanged(): void {
    const next = stages.find((stage) => stageRank(stage) > stageRank(this.state.reached));
    this.overrun?.waitFor(next !== undefined && next !== "verified" && stageRank(next) <= stageRank(this.state.required) ? next : undefined);
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

  /**
   * A timer for each due measurement not already waited for or under way: at most one an analysis,
   * so a measurement's answer (`record`, which sets the next) is never overtaken by the next one.
   * An answer that comes after the observation stopped being driven here is dropped.
   */
  scheduleMeasurements(due: readonly DueMeasurement[], measure: (query: string) => Promise<MeasuredValue>, record: (name: string, measured: MeasuredValue) => void): void {
    if (!this.driving) return;
    for (const next of due) {
      if (this.measurements.has(next.name)) continue;
      const timer = this.scheduler.schedule(() => {
        this.measurements.set(next.name, "taking");
        void measure(next.query).then((measured) => {
          if (!this.driving) return;
          this.measurements.delete(next.name);
          record(next.name, measured);
        });
      }, timerDelay(next.dueAtMs, this.scheduler.now()));
      this.measurements.set(next.name, timer);
    }
  }

  /** Leaves `driving` for `phase`: no reading, timer or stall notice reaches it any more. */
  stopDriving(phase: Exclude<LivePhase, "driving">): void {
    if (!this.driving) return;
    this.currentPhase = phase;
    this.stall?.stop();
    this.overrun?.stop();
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.wakeAt = undefined;
    for (const subscription of this.subscriptions.splice(0)) subscription.unsubscribe();
    for (const timer of this.measurements.values()) if (timer !== "taking") timer.unsubscribe();
    this.measurements.clear();
  }
}

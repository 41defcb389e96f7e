// `--stall auto` (issue 22): one notice when a rollout has taken longer to reach the stage it
// waits for than nearly all of the deployment's earlier rollouts took (the 95th percentile of
// their times to that stage, verdicts/history/history.ts says why), instead of after a fixed quiet time.
// Elapsed time is counted from the request, as the history counts it, so an adopted observation
// keeps its threshold. One timer, re-aimed when a stage is reached; a notice, never a failure.
import type { SchedulerLike, Subscription } from "rxjs";
import type { AutoStallThreshold, Stage, StageEstimate } from "../../verdicts/index.js";
import { timerDelay } from "./timerDelay.js";

export interface StageOverrun {
  readonly stage: Stage;
  readonly elapsedMs: number;
  readonly estimate: StageEstimate;
  readonly thresholdSeconds: number;
}

export class StageOverrunWatch {
  private readonly scheduler: SchedulerLike;
  private readonly startedAtMs: number;
  private readonly thresholdOf: (stage: Stage) => AutoStallThreshold | undefined;
  private readonly onOverrun: (overrun: StageOverrun) => void;
  private stage: Stage | undefined;
  private timer: Subscription | undefined;

  /** `thresholdOf`: when a stage counts as stalled (history.ts); none, no notice at that stage. */
  constructor(scheduler: SchedulerLike, startedAtMs: number, thresholdOf: (stage: Stage) => AutoStallThreshold | undefined, onOverrun: (overrun: StageOverrun) => void) {
    this.scheduler = scheduler;
    this.startedAtMs = startedAtMs;
    this.thresholdOf = thresholdOf;
    this.onOverrun = onOverrun;
  }

  /** The stage the observation waits for now; undefined when it waits for none. */
  waitFor(stage: Stage | undefined): void {
    if (stage === this.stage) return;
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.stage = stage;
    const threshold = stage === undefined ? undefined : this.thresholdOf(stage);
    if (stage === undefined || threshold === undefined) return;
    const dueAt = this.startedAtMs + threshold.thresholdSeconds * 1000;
    this.timer = this.scheduler.schedule(() => {
      this.timer = undefined;
      if (this.stage === stage) this.onOverrun({ stage, elapsedMs: this.scheduler.now() - this.startedAtMs, ...threshold });
    }, timerDelay(dueAt, this.scheduler.now()));
  }

  stop(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.stage = undefined;
  }
}

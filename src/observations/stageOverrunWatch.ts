// `--stall auto` (issue 22): one notice when a rollout has taken longer to reach the stage it
// waits for than nearly all of the deployment's earlier rollouts took (the 95th percentile of
// their times to that stage, verdicts/history.ts says why), instead of after a fixed quiet time.
// Elapsed time is counted from the request, as the history counts it, so an adopted observation
// keeps its threshold. One timer, re-aimed when a stage is reached; a notice, never a failure.
import type { SchedulerLike, Subscription } from "rxjs";
import type { Stage, StageEstimate } from "../verdicts/index.js";
import { timerDelay } from "./timerDelay.js";

export interface StageOverrun {
  readonly stage: Stage;
  readonly elapsedMs: number;
  readonly estimate: StageEstimate;
}

export class StageOverrunWatch {
  private readonly scheduler: SchedulerLike;
  private readonly startedAtMs: number;
  private readonly thresholdOf: (stage: Stage) => StageEstimate | undefined;
  private readonly onOverrun: (overrun: StageOverrun) => void;
  private stage: Stage | undefined;
  private timer: Subscription | undefined;

  /** `thresholdOf`: the estimate whose 95th percentile is a stage's threshold; none, no notice at that stage. */
  constructor(scheduler: SchedulerLike, startedAtMs: number, thresholdOf: (stage: Stage) => StageEstimate | undefined, onOverrun: (overrun: StageOverrun) => void) {
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
    const estimate = stage === undefined ? undefined : this.thresholdOf(stage);
    if (stage === undefined || estimate === undefined) return;
    const dueAt = this.startedAtMs + estimate.p95Seconds * 1000;
    this.timer = this.scheduler.schedule(() => {
      this.timer = undefined;
      if (this.stage === stage) this.onOverrun({ stage, elapsedMs: this.scheduler.now() - this.startedAtMs, estimate });
    }, timerDelay(dueAt, this.scheduler.now()));
  }

  stop(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.stage = undefined;
  }
}

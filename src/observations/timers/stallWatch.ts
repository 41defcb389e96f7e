// When to say an observation stalled: nothing moved (state, reason or reading of any resource)
// for stallMs. One timer per observation, armed for the moment the quiet time would run out and
// re-armed only when it fires: progress in between just moves `movedAt`, so a busy rollout costs
// no timer churn. After a notice, none until something moves and then stands still as long again.
import type { SchedulerLike, Subscription } from "rxjs";
import { timerDelay } from "./timerDelay.js";

export class StallWatch {
  private readonly stallMs: number;
  private readonly scheduler: SchedulerLike;
  private readonly onStall: (quietMs: number) => void;
  private movedAt: number;
  private timer: Subscription | undefined;
  /** A notice went out and nothing moved since. */
  private noticed = false;

  /** `stallMs` 0: never. `onStall` gets the quiet time; it runs on the scheduler. */
  constructor(stallMs: number, scheduler: SchedulerLike, onStall: (quietMs: number) => void) {
    this.stallMs = stallMs;
    this.scheduler = scheduler;
    this.onStall = onStall;
    this.movedAt = scheduler.now();
    this.arm();
  }

  /** Something moved: the quiet time starts again. */
  moved(): void {
    this.movedAt = this.scheduler.now();
    this.noticed = false;
    this.arm();
  }

  stop(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.noticed = true;
  }

  private arm(): void {
    if (this.stallMs === 0 || this.timer || this.noticed) return;
    this.timer = this.scheduler.schedule(() => {
      this.timer = undefined;
      this.check();
    }, timerDelay(this.movedAt + this.stallMs, this.scheduler.now()));
  }

  private check(): void {
    const quietMs = this.scheduler.now() - this.movedAt;
    if (quietMs < this.stallMs) {
      this.arm();
      return;
    }
    this.noticed = true;
    this.onStall(quietMs);
  }
}

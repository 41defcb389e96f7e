// Virtual time for the streams' timers (backoff, watchdog, restarts): tests move the clock by
// hand instead of sleeping, and nothing depends on how fast the machine is.
import { VirtualTimeScheduler } from "rxjs";

export class VirtualClock {
  readonly scheduler = new VirtualTimeScheduler();

  get now(): number {
    return this.scheduler.now();
  }

  /** Runs everything due within the next `ms` milliseconds (0: what is due now), in time order. */
  advance(ms: number): void {
    const target = this.scheduler.frame + ms;
    this.scheduler.maxFrames = target;
    this.scheduler.flush();
    this.scheduler.frame = target;
  }
}

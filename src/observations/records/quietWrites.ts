// The quiet writes of every observation driven here (RecordWriter.updateLater: a pending
// resource's message changed, nothing a client must see at once), due a fixed interval after they
// were asked for, run from one timer in slices of bounded time. A timer per observation fired them
// in bursts: 10,000 observations whose pods restarted together asked within a few seconds, their
// timers came due together, and Node ran every due timer of one duration in a single turn of the
// loop, each write building its verdict and sending its compare-and-swap (1.9 s of the loop held at
// 200,000 pods x 10,000 observations, bench/scale-curve). Here a slice writes until `budgetMs` has
// passed, then yields to I/O and other timers through the scheduler before the next slice.
import type { SchedulerLike, Subscription } from "rxjs";

interface QuietWrite {
  readonly dueAt: number;
  work: (() => void) | undefined;
}

/** Past this many milliseconds of writing, a slice yields (as the informers' lists do: streams/slicedQueue.ts). */
export const quietWriteSliceMs = 5;

export class QuietWrites {
  private readonly scheduler: SchedulerLike;
  private readonly now: () => number;
  /** In due order: every write waits the same interval, so it goes in at the end (or near it). */
  private readonly queue: QuietWrite[] = [];
  private head = 0;
  private timer: Subscription | undefined;
  private timerAt: number | undefined;

  /** `now`: the real clock slices are measured on (the scheduler's may be virtual time in tests). */
  constructor(scheduler: SchedulerLike, now: () => number = () => performance.now()) {
    this.scheduler = scheduler;
    this.now = now;
  }

  /** Writes waiting, for tests and metrics. */
  get size(): number {
    return this.queue.length - this.head;
  }

  /** Runs `work` once, `ms` from now or a little after (behind writes due before it); unsubscribe drops it. */
  schedule(work: () => void, ms: number): { unsubscribe(): void } {
    const entry: QuietWrite = { dueAt: this.scheduler.now() + ms, work };
    let at = this.queue.length;
    while (at > this.head && this.queue[at - 1]!.dueAt > entry.dueAt) at -= 1;
    this.queue.splice(at, 0, entry);
    this.arm();
    return { unsubscribe: () => void (entry.work = undefined) };
  }

  /** Drops every write waiting (the engine stops). */
  stop(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.timerAt = undefined;
    for (let i = this.head; i < this.queue.length; i++) this.queue[i]!.work = undefined;
    this.queue.length = 0;
    this.head = 0;
  }

  /** The timer aims at the first write due; one timer for all of them. */
  private arm(): void {
    const first = this.queue[this.head];
    if (first === undefined) return;
    if (this.timer !== undefined && this.timerAt !== undefined && this.timerAt <= first.dueAt) return;
    this.timer?.unsubscribe();
    this.timerAt = first.dueAt;
    this.timer = this.scheduler.schedule(() => this.runSlice(), Math.max(0, first.dueAt - this.scheduler.now()));
  }

  private runSlice(): void {
    this.timer = undefined;
    this.timerAt = undefined;
    const started = this.now();
    const nowAt = this.scheduler.now();
    let ran = 0;
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      if (entry.dueAt > nowAt) break;
      if (ran > 0 && this.now() - started >= quietWriteSliceMs) {
        // More are due: the next slice after what else waits for the loop.
        this.compact();
        this.timerAt = nowAt;
        this.timer = this.scheduler.schedule(() => this.runSlice(), 0);
        return;
      }
      this.head += 1;
      const work = entry.work;
      entry.work = undefined;
      if (work === undefined) continue;
      ran += 1;
      work();
    }
    this.compact();
    this.arm();
  }

  /** Cuts the consumed head off once it is long: shift() per write would move the whole array each time. */
  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head >= 1_024) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}

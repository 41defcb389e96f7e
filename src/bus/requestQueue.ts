// Requests handled in bounded slices. nats.js calls a subscription's callback synchronously for
// every message of a socket read, so a flood of 3,000 requests arriving together used to be 3,000
// JSON parses and schema checks in one turn of the event loop, and 3,000 KV round trips at once:
// 1-1.5 s of event-loop lag, /readyz answering in up to 2.8 s against the chart's 3 s probe
// timeout. Here a message is only queued; at most `sliceSize` are started a turn, the next slice
// after the event loop had its turn (setImmediate: I/O, probes, lease renewals first), and at most
// `concurrency` are in flight at once. Past `maxWaiting` queued, a request is answered at once
// with `quota` (retryable): the queue, and the memory it holds, stay bounded.

export type RequestQueueOptions = {
  /** Requests started in one turn of the event loop. Default 16. */
  readonly sliceSize?: number;
  /** Requests being handled at once (their KV and discovery round trips). Default 64. */
  readonly concurrency?: number;
  /** Requests waiting to be started; past it, refused. Default 10,000. */
  readonly maxWaiting?: number;
};

export const defaultRequestQueue = { sliceSize: 16, concurrency: 64, maxWaiting: 10_000 } as const satisfies Required<RequestQueueOptions>;

export class RequestQueue {
  private readonly limits: Required<RequestQueueOptions>;
  private readonly waiting: (() => Promise<void>)[] = [];
  private head = 0;
  private active = 0;
  private scheduled = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(options: RequestQueueOptions = {}) {
    this.limits = { ...defaultRequestQueue, ...options };
  }

  get maxWaiting(): number {
    return this.limits.maxWaiting;
  }

  /** Queues `handle`; false (nothing queued) when `maxWaiting` are waiting already. */
  offer(handle: () => Promise<void>): boolean {
    if (this.waiting.length - this.head >= this.limits.maxWaiting) return false;
    this.waiting.push(handle);
    this.schedule();
    return true;
  }

  /** Resolves when nothing waits and nothing is being handled. */
  idle(): Promise<void> {
    if (this.active === 0 && this.head === this.waiting.length) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startSlice();
    });
  }

  private startSlice(): void {
    let started = 0;
    while (started < this.limits.sliceSize && this.active < this.limits.concurrency && this.head < this.waiting.length) {
      const handle = this.waiting[this.head]!;
      this.waiting[this.head] = undefined as never;
      this.head += 1;
      started += 1;
      this.active += 1;
      void handle().finally(() => {
        this.active -= 1;
        this.afterEach();
      });
    }
    // Compact once the consumed prefix dominates: shift() on a long array is linear each time.
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    if (this.head < this.waiting.length && this.active < this.limits.concurrency) this.schedule();
  }

  private afterEach(): void {
    if (this.head < this.waiting.length) this.schedule();
    else if (this.active === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }
}

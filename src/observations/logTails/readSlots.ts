// At most N of one kind of read at a time. A log read is an API server round trip holding a
// connection and up to logTailLimits.bytes of text; a burst of failing observations (a broken
// image rolled out to fifty deployments) must not open fifty at once. A read waits for a slot
// while its own deadline (its abort signal) allows, then gives up with the limit named.

export class ReadSlots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {}

  /** Runs `read` once a slot is free; rejects with `signal`'s reason if it aborts first. */
  async run<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await read();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const granted = () => {
        signal.removeEventListener("abort", abort);
        this.active += 1;
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(granted);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new ReadSlotsBusyError(this.limit, { cause: signal.reason }));
      };
      if (signal.aborted) return abort();
      this.waiting.push(granted);
      signal.addEventListener("abort", abort, { once: true });
    });
  }
}

/** No slot came free before the read's deadline. */
export class ReadSlotsBusyError extends Error {
  override readonly name = "ReadSlotsBusyError";
  constructor(readonly limit: number, options?: { cause?: unknown }) {
    super(`${limit} log reads already in progress (limit maxLogReads ${limit}); none came free in time`, options);
  }
}

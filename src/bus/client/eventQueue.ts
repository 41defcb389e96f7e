// A buffered, single-reader async iterable: events are pushed as they arrive from the stream
// whether or not anyone is reading yet, so a caller may await the verdict first and read the
// progress afterwards, or never read it at all. Normally one observation's few dozen events; but a
// caller who never reads holds every event the observation gets (up to the stream's 10,000 an
// observation, each up to a max_payload), and on a single account anyone may publish on its
// subject. So what waits unread is bounded in items and bytes: past a bound the oldest go first,
// counted in `dropped`, and the newest (the verdict, which ends the events) is always kept.

export type EventQueueLimits<T> = {
  /** Items waiting unread at most. Default 10,000 (the stream keeps no more of one observation). */
  maxItems?: number;
  /** Bytes of the items waiting unread at most, as `sizeOf` measures them. Default 16 MiB. */
  maxBytes?: number;
  /** An item's size in bytes. Default: its JSON's UTF-8 length. */
  sizeOf?: (item: T) => number;
};

const jsonBytes = (item: unknown): number => Buffer.byteLength(JSON.stringify(item) ?? "");

export class EventQueue<T> implements AsyncIterable<T> {
  readonly #buffer: { item: T; bytes: number }[] = [];
  readonly #maxItems: number;
  readonly #maxBytes: number;
  readonly #sizeOf: (item: T) => number;
  #bytes = 0;
  #dropped = 0;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;
  #taken = false;

  constructor(limits: EventQueueLimits<T> = {}) {
    this.#maxItems = limits.maxItems ?? 10_000;
    this.#maxBytes = limits.maxBytes ?? 16 * 1024 ** 2;
    this.#sizeOf = limits.sizeOf ?? jsonBytes;
  }

  push(item: T): void {
    if (this.#ended) return;
    const bytes = this.#sizeOf(item);
    this.#buffer.push({ item, bytes });
    this.#bytes += bytes;
    while (this.#buffer.length > 1 && (this.#buffer.length > this.#maxItems || this.#bytes > this.#maxBytes)) {
      this.#bytes -= this.#buffer.shift()!.bytes;
      this.#dropped += 1;
    }
    this.#notify();
  }

  /** No more items: the reader finishes after the buffered ones. */
  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The reader gets the buffered items, then this error. */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#failure = { error };
    this.end();
  }

  /** Items dropped unread because a bound was reached. */
  get dropped(): number {
    return this.#dropped;
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    // Two readers would each see half the events; refuse rather than split them silently.
    if (this.#taken) throw new Error("progress can be read only once");
    this.#taken = true;
    for (;;) {
      const next = this.#buffer.shift();
      if (next !== undefined) {
        this.#bytes -= next.bytes;
        yield next.item;
        continue;
      }
      if (this.#ended) {
        if (this.#failure) throw this.#failure.error;
        return;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

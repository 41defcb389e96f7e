// A buffered, single-reader async iterable: events are pushed as they arrive from the stream
// whether or not anyone is reading yet, so a caller may await the verdict first and read the
// progress afterwards, or never read it at all. Holds one observation's events: a few dozen.

export class EventQueue<T> implements AsyncIterable<T> {
  readonly #buffer: T[] = [];
  #ended = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;
  #taken = false;

  push(item: T): void {
    if (this.#ended) return;
    this.#buffer.push(item);
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
        yield next;
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

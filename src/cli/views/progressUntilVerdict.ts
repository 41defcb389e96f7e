// What observe shows before it prints the verdict: the run's progress events up to the moment the
// verdict is known, never longer. The service sends a verdict to waiting clients on a core subject
// the moment it is stored, and the client resolves `verdict` on that copy; `progress` reads the
// stream, a few milliseconds behind it, and waits up to a second for the stream's copy so a library
// caller loses no event. The CLI does not wait for that: the verdict says everything the late events
// would (every stage reached, every resource's state), and a pipeline waits on observe's exit.
// Events already delivered when the verdict comes are still shown, in order.

const verdictKnown: unique symbol = Symbol("verdict known");

/** `progress` until `verdict` settles (either way), and then only what is already buffered. */
export async function* progressUntilVerdict<T>(progress: AsyncIterable<T>, verdict: Promise<unknown>): AsyncGenerator<T> {
  const events = progress[Symbol.asyncIterator]();
  const known = verdict.then(
    (): typeof verdictKnown => verdictKnown,
    (): typeof verdictKnown => verdictKnown,
  );
  for (;;) {
    const next = events.next();
    let step: IteratorResult<T> | typeof verdictKnown = await Promise.race([next, known]);
    // An event already buffered resolves within this turn's microtasks, before the next macrotask.
    if (step === verdictKnown) step = await Promise.race([next, new Promise<typeof verdictKnown>((resolve) => setImmediate(resolve, verdictKnown))]);
    if (step === verdictKnown) {
      // Not awaited: the queue's reader is parked on its next event, which may never come.
      void events.return?.();
      return;
    }
    if (step.done) return;
    yield step.value;
  }
}

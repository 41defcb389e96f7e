// Slicing for tests: every slice is exactly `stepsPerSlice` steps (the clock never moves, so a
// slice ends as soon as its minimum is run), and the next slice runs only when the test says so,
// so a test can look at the informer between any two slices.
import type { Slicing } from "../slicedQueue.js";

export class SteppedSlicing {
  readonly slicing: Slicing;
  private readonly waiting: (() => void)[] = [];

  constructor(stepsPerSlice: number) {
    this.slicing = {
      minimumSteps: stepsPerSlice,
      budgetMs: 0,
      now: () => 0,
      later: (task) => {
        this.waiting.push(task);
        return () => {
          const index = this.waiting.indexOf(task);
          if (index >= 0) this.waiting.splice(index, 1);
        };
      },
    };
  }

  /** Slices waiting for their turn (at most one per queue). */
  get pending(): number {
    return this.waiting.length;
  }

  /** Runs the slice that has waited longest; false when none waits. */
  next(): boolean {
    const task = this.waiting.shift();
    task?.();
    return task !== undefined;
  }

  /** Runs slices until none waits; returns how many ran. */
  drain(): number {
    let slices = 0;
    while (this.next()) slices += 1;
    return slices;
  }
}

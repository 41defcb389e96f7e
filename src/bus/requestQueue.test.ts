import { describe, expect, it } from "vitest";
import { RequestQueue } from "./requestQueue.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("RequestQueue", () => {
  it("starts at most sliceSize a turn, letting the event loop run between slices", async () => {
    const queue = new RequestQueue({ sliceSize: 4, concurrency: 100 });
    const started: number[] = [];
    for (let i = 0; i < 10; i++) queue.offer(async () => void started.push(i));
    await turn();
    expect(started).toHaveLength(4);
    await turn();
    expect(started).toHaveLength(8);
    await queue.idle();
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("handles at most concurrency at once, starting the next as one ends", async () => {
    const queue = new RequestQueue({ sliceSize: 100, concurrency: 2 });
    const ends: (() => void)[] = [];
    let active = 0;
    let most = 0;
    for (let i = 0; i < 5; i++) {
      queue.offer(
        () =>
          new Promise<void>((resolve) => {
            active += 1;
            most = Math.max(most, active);
            ends.push(() => {
              active -= 1;
              resolve();
            });
          }),
      );
    }
    await turn();
    expect(ends).toHaveLength(2);
    while (ends.length > 0) {
      ends.shift()!();
      await turn();
      await turn();
    }
    await queue.idle();
    expect(most).toBe(2);
  });

  it("refuses past maxWaiting, and takes again once the queue moved", async () => {
    const queue = new RequestQueue({ maxWaiting: 3 });
    const handled: number[] = [];
    expect([1, 2, 3, 4].map((i) => queue.offer(async () => void handled.push(i)))).toEqual([true, true, true, false]);
    await queue.idle();
    expect(handled).toEqual([1, 2, 3]);
    expect(queue.offer(async () => void handled.push(5))).toBe(true);
    await queue.idle();
    expect(handled).toEqual([1, 2, 3, 5]);
  });
});

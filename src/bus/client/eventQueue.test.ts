import { expect, it } from "vitest";
import { EventQueue } from "./eventQueue.js";

async function readAll<T>(queue: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of queue) items.push(item);
  return items;
}

it("hands over what was pushed before and after the reader started, then ends", async () => {
  const queue = new EventQueue<number>();
  queue.push(1);
  const reading = readAll(queue);
  queue.push(2);
  await Promise.resolve();
  queue.push(3);
  queue.end();
  queue.push(4);
  expect(await reading).toEqual([1, 2, 3]);
});

it("delivers buffered items before the failure", async () => {
  const queue = new EventQueue<string>();
  queue.push("progress");
  queue.fail(new Error("consumer gone"));
  const seen: string[] = [];
  await expect(
    (async () => {
      for await (const item of queue) seen.push(item);
    })(),
  ).rejects.toThrow("consumer gone");
  expect(seen).toEqual(["progress"]);
});

it("can be read only once", async () => {
  const queue = new EventQueue<number>();
  queue.end();
  await readAll(queue);
  await expect(readAll(queue)).rejects.toThrow("only once");
});

it("unread, keeps the newest within its bounds, counting the oldest it dropped, and always the last pushed", async () => {
  const byItems = new EventQueue<number>({ maxItems: 3 });
  for (let i = 1; i <= 10; i++) byItems.push(i);
  byItems.end();
  expect(await readAll(byItems)).toEqual([8, 9, 10]);
  expect(byItems.dropped).toBe(7);

  // A follower that only awaits the verdict while someone floods the observation's subject with 100 KB events.
  const byBytes = new EventQueue<{ type: string; message?: string }>({ maxBytes: 1024 ** 2 });
  for (let i = 0; i < 200; i++) byBytes.push({ type: "progress", message: "x".repeat(100_000) });
  const verdict = { type: "verdict", message: "y".repeat(2 * 1024 ** 2) };
  byBytes.push(verdict);
  byBytes.end();
  expect(await readAll(byBytes)).toEqual([verdict]);
  expect(byBytes.dropped).toBe(200);
});

it("counts only what waits: a reader keeping up loses nothing", async () => {
  const queue = new EventQueue<number>({ maxItems: 2 });
  const seen: number[] = [];
  const reading = (async () => {
    for await (const item of queue) seen.push(item);
  })();
  for (let i = 0; i < 10; i++) {
    queue.push(i);
    await new Promise((resolve) => setImmediate(resolve));
  }
  queue.end();
  await reading;
  expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(queue.dropped).toBe(0);
});

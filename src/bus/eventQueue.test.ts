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

import { describe, expect, it } from "vitest";
import { EventQueue } from "../../bus/client/eventQueue.js";
import { progressUntilVerdict } from "./progressUntilVerdict.js";

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("progressUntilVerdict", () => {
  it("reads every event while the verdict is unknown, then ends with the queue", async () => {
    const queue = new EventQueue<string>();
    const shown = collect(progressUntilVerdict(queue, new Promise(() => {})));
    queue.push("pending");
    await new Promise((resolve) => setTimeout(resolve, 5));
    queue.push("stage applied reached");
    queue.end();
    expect(await shown).toEqual(["pending", "stage applied reached"]);
  });

  it("ends as soon as the verdict is known, without waiting for the stream's late events", async () => {
    const queue = new EventQueue<string>();
    let decide: (verdict: string) => void = () => {};
    const verdict = new Promise<string>((resolve) => (decide = resolve));
    const shown = collect(progressUntilVerdict(queue, verdict));
    queue.push("pending");
    await new Promise((resolve) => setTimeout(resolve, 5));
    decide("succeeded");
    // The queue never ends: the stream's copy of the verdict is still on its way.
    expect(await shown).toEqual(["pending"]);
  });

  it("still shows, in order, the events already buffered when the verdict comes", async () => {
    const queue = new EventQueue<string>();
    for (const event of ["a", "b", "c"]) queue.push(event);
    expect(await collect(progressUntilVerdict(queue, Promise.resolve("succeeded")))).toEqual(["a", "b", "c"]);
  });

  it("ends on a verdict that rejects, leaving the error to the verdict's reader", async () => {
    const queue = new EventQueue<string>();
    const verdict = Promise.reject(new Error("observer closed"));
    verdict.catch(() => {});
    expect(await collect(progressUntilVerdict(queue, verdict))).toEqual([]);
  });

  it("passes on a progress failure that comes before the verdict", async () => {
    const queue = new EventQueue<string>();
    queue.push("pending");
    queue.fail(new Error("consumer failed"));
    await expect(collect(progressUntilVerdict(queue, new Promise(() => {})))).rejects.toThrow("consumer failed");
  });
});

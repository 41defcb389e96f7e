import { describe, expect, it } from "vitest";
import { RequestQueue } from "./requestQueue.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A handler that stays in flight until `end()` is called, noting when it started. */
function held(started: string[], name: string) {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { end: () => end(), handle: () => (started.push(name), done) };
}

describe("RequestQueue", () => {
  it("starts at most sliceSize a turn, letting the event loop run between slices", async () => {
    const queue = new RequestQueue({ sliceSize: 4, concurrency: 100 });
    const started: number[] = [];
    for (let i = 0; i < 10; i++) queue.offer("a", async () => void started.push(i));
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
        "a",
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

  it("refuses past maxWaiting, every lane together, and takes again once the queue moved", async () => {
    const queue = new RequestQueue({ maxWaiting: 3 });
    const handled: string[] = [];
    const offers = [["a", "1"], ["b", "2"], ["a", "3"], ["c", "4"]].map(([lane, name]) => queue.offer(lane!, async () => void handled.push(name!)));
    expect(offers).toEqual([true, true, true, false]);
    expect(queue.waiting).toBe(3);
    await queue.idle();
    expect(handled.sort()).toEqual(["1", "2", "3"]);
    expect(queue.offer("c", async () => void handled.push("5"))).toBe(true);
    await queue.idle();
    expect(handled).toContain("5");
  });

  it("a tenant with 900 queued delays another's one request by at most one round", async () => {
    // One request handled at a time: the order of starts is the order of service.
    const queue = new RequestQueue({ sliceSize: 100, concurrency: 1, maxWaiting: 10_000 });
    const started: string[] = [];
    const flood = Array.from({ length: 900 }, (_, i) => held(started, `B${i}`));
    for (const request of flood) queue.offer("TEAM_B", request.handle);
    await turn();
    expect(started).toEqual(["B0"]);
    const one = held(started, "A0");
    queue.offer("TEAM_A", one.handle);
    const finish = async (request: { end(): void }) => {
      request.end();
      await turn();
      await turn();
    };
    // One round: TEAM_B's lane, waiting before TEAM_A's came, has its one turn (B1), then TEAM_A's.
    await finish(flood[0]!);
    await finish(flood[1]!);
    expect(started).toEqual(["B0", "B1", "A0"]);
    await finish(one);
    expect(started.at(-1)).toBe("B2");
    for (const request of flood) request.end();
    await queue.idle();
    expect(started).toHaveLength(901);
  });

  it("serves lanes in turn, one start each, a lane that comes back after every lane already waiting", async () => {
    const queue = new RequestQueue({ sliceSize: 100, concurrency: 1 });
    const started: string[] = [];
    const requests = new Map<string, ReturnType<typeof held>>();
    const offer = (lane: string, name: string) => {
      const request = held(started, name);
      requests.set(name, request);
      queue.offer(lane, request.handle);
    };
    for (const name of ["B1", "B2", "B3"]) offer("B", name);
    for (const name of ["C1", "C2"]) offer("C", name);
    offer("A", "A1");
    const finish = async (name: string) => {
      requests.get(name)!.end();
      await turn();
      await turn();
    };
    await turn();
    expect(started).toEqual(["B1"]);
    await finish("B1");
    await finish("C1");
    // A's lane empties with A1; A2 arrives while C's turn is next, so A waits behind C and B.
    offer("A", "A2");
    await finish("A1");
    await finish("B2");
    await finish("C2");
    await finish("A2");
    await finish("B3");
    expect(started).toEqual(["B1", "C1", "A1", "B2", "C2", "A2", "B3"]);
    await queue.idle();
  });
});

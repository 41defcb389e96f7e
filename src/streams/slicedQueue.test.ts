import { describe, expect, it } from "vitest";
import { SlicedQueue, type Slicing } from "./slicedQueue.js";
import { SteppedSlicing } from "./testing/index.js";

/** An item of `count` steps, each written down as `name1`, `name2`... when it runs. */
function* steps(log: string[], name: string, count: number, during: (step: number) => void = () => {}) {
  for (let step = 1; step <= count; step++) {
    log.push(`${name}${step}`);
    during(step);
    yield;
  }
}

/** A queue of two-step slices, run by hand, with two lanes and a log. */
function twoLanes() {
  const stepped = new SteppedSlicing(2);
  const queue = new SlicedQueue(stepped.slicing);
  return { stepped, queue, lanes: [queue.lane(), queue.lane()] as const, log: [] as string[] };
}

describe("SlicedQueue", () => {
  it("starts work pushed to an idle queue at once, and runs the rest a slice at a time, in order", () => {
    const stepped = new SteppedSlicing(3);
    const queue = new SlicedQueue(stepped.slicing);
    const log: string[] = [];

    queue.push(steps(log, "a", 5));
    expect(log).toEqual(["a1", "a2", "a3"]);
    // Behind the item in progress, not run at once, though it is one step.
    queue.push(() => log.push("b"));
    queue.push(steps(log, "c", 2));
    expect(log).toEqual(["a1", "a2", "a3"]);
    expect(queue.idle).toBe(false);

    stepped.next();
    // An iterator's last `next()` (done) is a step of its own.
    expect(log).toEqual(["a1", "a2", "a3", "a4", "a5"]);
    stepped.next();
    expect(log).toEqual(["a1", "a2", "a3", "a4", "a5", "b", "c1", "c2"]);
    expect(queue.idle).toBe(false);
    expect(stepped.drain()).toBe(1);
    expect(queue.idle).toBe(true);

    // Idle again: a single step runs inside push.
    queue.push(() => log.push("d"));
    expect(log.at(-1)).toBe("d");
    expect(stepped.pending).toBe(0);
  });

  it("runs at least minimumSteps whatever the clock says, then ends a slice at the first step past its budget", () => {
    let now = 0;
    const later: (() => void)[] = [];
    const slicing = (minimumSteps: number): Slicing => ({
      minimumSteps,
      budgetMs: 5,
      now: () => now,
      later: (task) => {
        later.push(task);
        return () => {};
      },
    });
    const log: string[] = [];
    // Each step takes 2 ms: steps 1-3 start at 0, 2 and 4 ms, and the fourth would start at 6 ms.
    const timed = (name: string, count: number) => steps(log, name, count, () => (now += 2));

    new SlicedQueue(slicing(1)).push(timed("a", 10));
    expect(log).toEqual(["a1", "a2", "a3"]);

    log.length = 0;
    later.length = 0;
    // A 1,000 ms pause in the second step (a long garbage collection) does not cut a short item.
    new SlicedQueue(slicing(4)).push(steps(log, "b", 3, (step) => (now += step === 2 ? 1_000 : 0)));
    expect(log).toEqual(["b1", "b2", "b3"]);
    expect(later).toEqual([]);
  });

  it("runs work pushed from inside a step after what is queued, never inside the step", () => {
    const stepped = new SteppedSlicing(10);
    const queue = new SlicedQueue(stepped.slicing);
    const log: string[] = [];
    queue.push(steps(log, "a", 3, (step) => step === 1 && queue.push(() => log.push("b"))));
    expect(log).toEqual(["a1", "a2", "a3", "b"]);
  });

  it("stop drops what is queued and the slice waiting; from inside a step, no further step runs", () => {
    const stepped = new SteppedSlicing(2);
    const queue = new SlicedQueue(stepped.slicing);
    const log: string[] = [];
    queue.push(steps(log, "a", 5));
    queue.push(() => log.push("b"));
    queue.stop();
    expect(stepped.pending).toBe(0);
    queue.push(() => log.push("c"));
    expect(log).toEqual(["a1", "a2"]);

    const inner = new SteppedSlicing(10);
    const stopping = new SlicedQueue(inner.slicing);
    const seen: string[] = [];
    stopping.push(steps(seen, "a", 5, (step) => step === 2 && stopping.stop()));
    stopping.push(() => seen.push("b"));
    expect(seen).toEqual(["a1", "a2"]);
    expect(inner.pending).toBe(0);
  });

  it("a step that throws ends its item, and the queue goes on with the next", () => {
    const stepped = new SteppedSlicing(10);
    const queue = new SlicedQueue(stepped.slicing);
    const log: string[] = [];
    const failing = new Error("a handler's bug");
    expect(() =>
      queue.push(
        steps(log, "a", 3, (step) => {
          if (step === 2) throw failing;
        }),
      ),
    ).toThrow(failing);
    expect(queue.idle).toBe(true);
    queue.push(() => log.push("b"));
    expect(log).toEqual(["a1", "a2", "b"]);
  });

  it("lanes share one order; a stopped lane's work is dropped, from inside its own step too, and the other lanes' runs", () => {
    const { stepped, queue, lanes: [pods, jobs], log } = twoLanes();
    pods.push(steps(log, "pod", 3));
    jobs.push(() => log.push("job"));
    pods.push(() => log.push("pod-event"));
    jobs.push(steps(log, "j", 3, (step) => step === 1 && jobs.stop()));
    expect(log).toEqual(["pod1", "pod2"]);
    pods.stop();
    // pod3 and pod-event are dropped where they stand; the Job's work goes on in its turn.
    stepped.drain();
    expect(log).toEqual(["pod1", "pod2", "job", "j1"]);
    pods.push(() => log.push("after"));
    expect(log.at(-1)).toBe("j1");
    expect(queue.idle).toBe(true);
  });

  it("pushAfterOwn runs at once past other lanes' work, behind its own lane's, and never inside a step", () => {
    const { stepped, lanes: [pods, deployments], log } = twoLanes();
    pods.push(steps(log, "relist", 4));
    // The Deployments' lane has nothing queued: its event does not wait for the pods' relist.
    deployments.pushAfterOwn(() => log.push("deployment event"));
    expect(log).toEqual(["relist1", "relist2", "deployment event"]);
    // A pod event waits behind its own lane's relist.
    pods.pushAfterOwn(() => log.push("pod event"));
    expect(log.at(-1)).toBe("deployment event");
    // Pushed from inside a step, it is queued: nothing interleaves with a step.
    deployments.push(() => deployments.pushAfterOwn(() => log.push("from a step")));
    stepped.drain();
    expect(log).toEqual(["relist1", "relist2", "deployment event", "relist3", "relist4", "pod event", "from a step"]);
    // Settled: each lane's count of queued work is back to nothing.
    pods.pushAfterOwn(() => log.push("pod event 2"));
    expect(log.at(-1)).toBe("pod event 2");
  });
});

// Work that must happen in order (an informer's relist, object by object, then the watch events
// that arrived behind it), run in slices of bounded time, so that a list of 200,000 pods never
// holds the event loop for seconds: between two slices timers (lease heartbeats), I/O (NATS
// pings, requests) and other kinds' events run. Guarantees:
// - order: work runs in the order pushed, each item's steps in order, an item's last step
//   before the next item's first; nothing else interleaves with the steps;
// - no added latency: work pushed to an idle queue starts at once, inside `push`, and work that
//   fits in one slice (a watch event, a short list) is done before `push` returns;
// - stop() drops what is queued: no step runs after it, not even the rest of the current slice;
// - lanes: the informers of one hub share one queue, so their lists, snapshots and synced news
//   keep the order they were pushed in across kinds too (a subscriber that subscribes to pods and
//   then to Jobs sees every cached pod before the first Job, however long the pods' snapshot);
//   each informer pushes through a lane of its own, which it stops alone (none of its steps runs
//   after that, the others' do). A watch event need only follow its own lane's work: with none
//   queued it is applied at once, not behind another kind's relist of 200,000 pods.
//
// A slice is bounded by time, not by a count of steps: what a step costs is mostly what its
// subscribers do with the events, from a map update (a pod no observation cares about) to judging
// a workload and its 200 pods again, so no one count is both short and cheap to yield after.

export interface Slicing {
  /**
   * Steps a slice runs before it reads the clock: work this short is always done in one go,
   * whatever the clock says (a garbage collection in the middle of a ten-object list must not
   * make it asynchronous).
   */
  minimumSteps: number;
  /** Past `minimumSteps`, a slice ends at the first step boundary this many milliseconds after it began. */
  budgetMs: number;
  /** Milliseconds, monotonic. */
  now: () => number;
  /** Runs `task` in a later macrotask, after pending I/O and timers; returns what cancels it. */
  later: (task: () => void) => () => void;
}

/**
 * 5 ms: short beside what anything waiting for the loop can notice (NATS pings and lease
 * heartbeats are seconds apart, event-to-verdict p99 is tens of ms), long beside the cost of one
 * yield (a setImmediate, well under 0.1 ms), so yielding 200 times a second costs little.
 * setImmediate runs after the poll phase: I/O callbacks and due timers go first.
 */
export const defaultSlicing: Slicing = {
  minimumSteps: 64,
  budgetMs: 5,
  now: () => performance.now(),
  later: (task) => {
    const immediate = setImmediate(task);
    return () => clearImmediate(immediate);
  },
};

/** One item of work: a single step, or an iterator each of whose `next()` calls is a step. */
export type Work = (() => void) | Iterator<unknown, unknown, undefined>;

/** Consumed slots at the queue's head kept before they are cut: shift() per item would move the whole array each time. */
const headroom = 1_024;

/** One producer's share of a queue: its work, in the queue's one order, and a stop of its own. */
export class QueueLane {
  private readonly queue: SlicedQueue;
  private ended = false;
  /** This lane's items in the queue, not yet done or dropped. */
  private queued = 0;

  constructor(queue: SlicedQueue) {
    this.queue = queue;
  }

  get stopped(): boolean {
    return this.ended;
  }

  /** Work in the queue's one order: after everything pushed before it, whatever the lane. */
  push(work: Work): void {
    if (this.ended) return;
    this.queued += 1;
    this.queue.push(work, this);
  }

  /**
   * A single step that need only follow this lane's own work: run at once when the lane has
   * nothing queued and no step of any lane is running (nothing interleaves with a step), else
   * queued as `push` queues it.
   */
  pushAfterOwn(step: () => void): void {
    if (this.ended) return;
    if (this.queued === 0 && !this.queue.inStep) step();
    else this.push(step);
  }

  /** Called by the queue when one of this lane's items is done or dropped. */
  settled(): void {
    this.queued -= 1;
  }

  /** None of this lane's steps runs after this, not even the rest of the current item. */
  stop(): void {
    this.ended = true;
  }
}

export class SlicedQueue {
  private readonly slicing: Slicing;
  private readonly items: Work[] = [];
  /** The lane of each item, at the same index; undefined for work pushed to the queue itself. */
  private readonly lanes: (QueueLane | undefined)[] = [];
  /** Index of the item in progress: items before it are done. */
  private head = 0;
  private running = false;
  /** Cancels the slice waiting for its turn, while one is. */
  private cancelNext: (() => void) | undefined;
  private stopped = false;

  constructor(slicing: Slicing) {
    this.slicing = slicing;
  }

  /** Nothing queued, nothing in progress. */
  get idle(): boolean {
    return this.head === this.items.length;
  }

  /** A slice is running: the caller is inside one of its steps. */
  get inStep(): boolean {
    return this.running;
  }

  /** A producer's own lane into this queue. */
  lane(): QueueLane {
    return new QueueLane(this);
  }

  push(work: Work, lane?: QueueLane): void {
    if (this.stopped) return;
    this.items.push(work);
    this.lanes.push(lane);
    // Pushed from inside a step (a subscriber's handler), or behind a slice that is waiting: the
    // running loop, or the next slice, gets to it in turn.
    if (!this.running && this.cancelNext === undefined) this.runSlice();
  }

  stop(): void {
    this.stopped = true;
    this.cancelNext?.();
    this.cancelNext = undefined;
    this.clear();
  }

  private clear(): void {
    this.items.length = 0;
    this.lanes.length = 0;
    this.head = 0;
  }

  private runSlice(): void {
    const { minimumSteps, budgetMs, now, later } = this.slicing;
    this.cancelNext = undefined;
    this.running = true;
    const startedAt = now();
    let steps = 0;
    try {
      while (this.head < this.items.length && (steps < minimumSteps || now() - startedAt < budgetMs)) {
        const work = this.items[this.head]!;
        steps += 1;
        const lane = this.lanes[this.head];
        // A stopped lane's work is dropped where it stands, whatever is left of it.
        if (lane?.stopped) {
          this.head += 1;
          lane.settled();
          continue;
        }
        let done = true;
        try {
          if (typeof work === "function") work();
          else done = work.next().done === true;
        } finally {
          // A step that throws ends its item (an iterator that threw is finished); the rest still runs.
          if (done) {
            this.head += 1;
            lane?.settled();
          }
        }
        if (this.stopped) return;
      }
    } finally {
      this.running = false;
      if (this.idle) this.clear();
      else if (!this.stopped) {
        if (this.head > headroom) {
          this.items.splice(0, this.head);
          this.lanes.splice(0, this.head);
          this.head = 0;
        }
        this.cancelNext = later(() => this.runSlice());
      }
    }
  }
}

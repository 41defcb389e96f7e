// The EventStore of local mode (`stagewatch observe` with no service): the process that decides an
// observation also follows it, so an event is "stored" when it is handed to the follower, and the
// one verdict event ends the follow. Nothing is kept for anyone else: there is nobody else.
//
// The follower reads `follow(observationId)` once, as the bus client's `progress` is read: every
// event of the observation from its first, in publishing order, ending after the verdict. Events
// published before the follower started reading wait in its queue, so none is lost between
// `observe` answering and the view being drawn.
import type { ObservationEvent, ObservationVerdict } from "../../verdicts/index.js";
import type { EventStore } from "../ports.js";

interface Follow {
  readonly queue: ObservationEvent[];
  wake: (() => void) | undefined;
  verdict: ObservationVerdict | undefined;
  readonly settled: Promise<ObservationVerdict>;
  settle(verdict: ObservationVerdict): void;
  /** Set by `close`: the follow ends without a verdict. */
  abandoned: Error | undefined;
  fail(error: Error): void;
}

export class InProcessEvents implements EventStore {
  private readonly follows = new Map<string, Follow>();

  async publish(event: ObservationEvent): Promise<void> {
    const follow = this.followOf(event.observationId);
    // Exactly one verdict per observation: a second would be a bug upstream, never shown twice.
    if (follow.verdict !== undefined || follow.abandoned !== undefined) return;
    follow.queue.push(event);
    if (event.type === "verdict") {
      follow.verdict = event.verdict;
      follow.settle(event.verdict);
    }
    follow.wake?.();
  }

  async hasVerdict(_deployment: string, observationId: string): Promise<boolean> {
    return this.follows.get(observationId)?.verdict !== undefined;
  }

  /** Nothing waits to be sent: publishing hands the event over at once. */
  discard(): void {}

  /** The observation's events and its verdict; read `progress` once. */
  follow(observationId: string): { progress: AsyncIterable<ObservationEvent>; verdict: Promise<ObservationVerdict> } {
    const follow = this.followOf(observationId);
    return { progress: this.read(follow), verdict: follow.settled };
  }

  /** Ends every follow still waiting: its verdict rejects with `error` (the process is stopping). */
  close(error: Error): void {
    for (const follow of this.follows.values()) {
      if (follow.verdict !== undefined) continue;
      follow.abandoned = error;
      follow.fail(error);
      follow.wake?.();
    }
  }

  private async *read(follow: Follow): AsyncGenerator<ObservationEvent> {
    for (;;) {
      const event = follow.queue.shift();
      if (event !== undefined) {
        yield event;
        if (event.type === "verdict") return;
        continue;
      }
      if (follow.abandoned !== undefined) return;
      await new Promise<void>((resolve) => (follow.wake = resolve));
      follow.wake = undefined;
    }
  }

  private followOf(observationId: string): Follow {
    let follow = this.follows.get(observationId);
    if (follow === undefined) {
      let settle!: (verdict: ObservationVerdict) => void;
      let fail!: (error: Error) => void;
      const settled = new Promise<ObservationVerdict>((resolve, reject) => ((settle = resolve), (fail = reject)));
      // A follow nobody awaits (the caller stopped first) must not end the process on an unhandled rejection.
      settled.catch(() => undefined);
      follow = { queue: [], wake: undefined, verdict: undefined, settled, settle, abandoned: undefined, fail };
      this.follows.set(observationId, follow);
    }
    return follow;
  }
}

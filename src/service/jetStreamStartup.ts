// Start-up against a JetStream that is not ready yet. A fresh 3-node cluster answers the
// JetStream API only once it has elected its meta leader, and a stream's or bucket's first
// requests time out until that asset has a leader too; a replica started beside the cluster
// (the chart's pods start together) used to die with a stack (`TimeoutError: timeout` from
// stream info). Every step of the set-up is tried again, with backoff, for a bounded time; past
// it the service exits 3 with one line naming NATS, as when NATS cannot be reached at all.
import type { Logger } from "../logging/index.js";

export type StartupRetry = {
  /** How long the set-up is tried before the service gives up. */
  readonly withinMs: number;
  /** Waits between attempts (tests pass one on a virtual clock). */
  readonly delay?: (ms: number) => Promise<void>;
  readonly now?: () => number;
};

export const defaultJetStreamWaitMs = 60_000;

const backoffMs = [250, 500, 1_000, 2_000, 4_000];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** JetStream did not become ready within the bound: the last error, on one line. */
export class JetStreamNotReadyError extends Error {
  override readonly name = "JetStreamNotReadyError";
}

/** One line of an error's message: a server's or library's text may span several. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.split("\n")[0]!.trim();
}

/** `attempt` until it resolves, or JetStreamNotReadyError once `withinMs` has passed since the first try. */
export async function untilJetStreamReady<T>(what: string, attempt: () => Promise<T>, retry: StartupRetry, logger: Logger): Promise<T> {
  const now = retry.now ?? Date.now;
  const delay = retry.delay ?? sleep;
  const startedAt = now();
  for (let failures = 0; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      const waitMs = backoffMs[Math.min(failures, backoffMs.length - 1)]!;
      const elapsedMs = now() - startedAt;
      if (elapsedMs + waitMs > retry.withinMs) {
        throw new JetStreamNotReadyError(`${what}: JetStream not ready after ${Math.round(elapsedMs / 1000)}s: ${oneLine(error)}`, { cause: error });
      }
      if (failures === 0 || failures % 5 === 0) logger.warn({ err: error, step: what, failures: failures + 1 }, "JetStream not ready yet; retrying");
      await delay(waitMs);
    }
  }
}

// Publishes observation events into the event stream. The engine must never stall or crash on a
// NATS hiccup, so publish() never throws: a failed attempt is counted, retried with bounded
// backoff, and given up on with a log line. Giving up loses nothing a client cannot recover: the
// verdict is also in the observation record, which `get` answers from.
//
// Events of one observation are published one after another, in the order the engine emitted
// them, so a retried progress event can never land after the verdict that ends a client's stream.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { ObservationEvent } from "../verdicts/schemas.js";
import { canonicalJson, sha256Hex } from "./contentHash.js";
import { busNames, defaultSubjectPrefix } from "./subjects.js";
import { noopBusMetrics, silentLogger, type BusLogger, type BusMetrics } from "./telemetry.js";

export type RetryPolicy = {
  /** Attempts in all, the first included. */
  attempts: number;
  initialDelayMs: number;
  /** Delays double from initialDelayMs up to this. */
  maxDelayMs: number;
};
export const defaultPublishRetry: RetryPolicy = { attempts: 5, initialDelayMs: 100, maxDelayMs: 2000 };

export type PublishOutcome = { published: true; seq: number; duplicate: boolean } | { published: false; error: unknown };

export type EventPublisherOptions = {
  js: Pick<JetStreamClient, "publish">;
  prefix?: string;
  retry?: RetryPolicy;
  /** How long to wait for the stream's acknowledgement of one attempt. */
  ackTimeoutMs?: number;
  metrics?: BusMetrics;
  logger?: BusLogger;
  /** Waits between attempts; tests pass one that returns at once. */
  delay?: (ms: number) => Promise<void>;
};

export type EventPublisher = {
  /** Resolves once the event is stored (or given up on); never rejects. */
  publish(event: ObservationEvent): Promise<PublishOutcome>;
  /** Resolves when every publish started so far has finished. */
  flush(): Promise<void>;
};

/**
 * The Nats-Msg-Id the stream de-duplicates on. An observation has one verdict (a terminal outcome
 * never changes) and reaches each stage once, so a re-sent verdict or stage is the same message
 * whoever sends it; progress events are told apart by their whole content, time included.
 */
export function eventMessageId(event: ObservationEvent): string {
  switch (event.type) {
    case "verdict":
      return `${event.observationId}.verdict`;
    case "stage":
      return `${event.observationId}.stage.${event.stage}`;
    case "progress":
      return `${event.observationId}.progress.${sha256Hex(canonicalJson(event))}`;
  }
}

export function retryDelayMs(policy: RetryPolicy, failedAttempts: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (failedAttempts - 1));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createEventPublisher(options: EventPublisherOptions): EventPublisher {
  const names = busNames(options.prefix ?? defaultSubjectPrefix);
  const retry = options.retry ?? defaultPublishRetry;
  const metrics = options.metrics ?? noopBusMetrics;
  const logger = options.logger ?? silentLogger;
  const delay = options.delay ?? sleep;
  const ackTimeoutMs = options.ackTimeoutMs ?? 5000;
  /** The last publish queued per observation; later events of that observation wait for it. */
  const tails = new Map<string, Promise<PublishOutcome>>();

  const attempt = async (event: ObservationEvent): Promise<PublishOutcome> => {
    const log = { observationId: event.observationId, deployment: event.deployment, type: event.type };
    let subject: string;
    try {
      subject = names.eventSubject(event.deployment, event.observationId);
    } catch (error) {
      logger.error({ ...log, err: error }, "event not published: invalid subject");
      return { published: false, error };
    }
    const body = JSON.stringify(event);
    const msgID = eventMessageId(event);
    let lastError: unknown;
    for (let n = 1; n <= retry.attempts; n++) {
      try {
        const ack = await options.js.publish(subject, body, { msgID, timeout: ackTimeoutMs });
        return { published: true, seq: ack.seq, duplicate: ack.duplicate };
      } catch (error) {
        lastError = error;
        metrics.publishFailed();
        if (n < retry.attempts) {
          logger.warn({ ...log, err: error, attempt: n }, "event publish failed; retrying");
          await delay(retryDelayMs(retry, n));
        }
      }
    }
    logger.error({ ...log, err: lastError, attempts: retry.attempts }, "event publish failed; giving up");
    return { published: false, error: lastError };
  };

  return {
    publish(event) {
      const previous = tails.get(event.observationId);
      const next = previous ? previous.then(() => attempt(event)) : attempt(event);
      tails.set(event.observationId, next);
      void next.then(() => {
        if (tails.get(event.observationId) === next) tails.delete(event.observationId);
      });
      return next;
    },
    async flush() {
      await Promise.all(tails.values());
    },
  };
}

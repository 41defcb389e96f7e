// Publishes observation events into the event stream. The engine must never stall or crash on a
// NATS hiccup, so publish() never throws: a failed attempt is counted and retried with backoff
// for as long as NATS is away (SPEC section 10: an outage delays events, never drops a decided
// verdict). What waits is bounded in events and bytes, and per tenant in bytes (eventBuffer.ts):
// past a bound, new progress and stall notices are dropped (counted per tenant, logged once an
// observation until it has room again; `get` still answers the newest state from the record),
// while stage and verdict events are always kept.
//
// Events of one observation are pipelined: each is sent when the engine emits it, without waiting
// for the acknowledgement of the one before (one connection keeps them in order, so they are
// stored in the order emitted unless one needs a retry, which lands later). The verdict alone
// waits until every earlier event of its observation is stored or given up, so nothing of an
// observation ever lands after the verdict that ends a client's stream.
//
// A verdict is also sent at once, signed as its stream copy, on its core notice subject
// (BusNames.verdictNotice) for the clients already waiting: they verify it as they verify the
// stream's copy, and need not wait for that barrier, the stream's acknowledgement and the
// consumer's delivery. The stream's copy stays the one kept (late clients, hasVerdict).
//
// With a signing key every event goes out signed (its verdict, if any, was signed when it was
// stored), and its message id carries its signature (eventMessageId): the stream keeps the first
// message of each id, so an id anyone can write down in advance is one a forger can take first.
import { silentLogger, type Logger } from "../../logging/index.js";
import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { ObservationEvent } from "../../verdicts/contract/schemas.js";
import { parseWith } from "../../verdicts/contract/validation.js";
import { canonicalJson } from "../../signing/canonicalForm.js";
import { unsignedService, type ServiceSigner } from "../../signing/serviceSigner.js";
import { sha256Hex } from "../contentHash.js";
import { defaultEventBufferLimits, EventBuffer, type EventBufferLimits } from "./eventBuffer.js";
import { busNames, defaultSubjectPrefix } from "../subjects.js";
import { noopBusMetrics, type BusMetrics } from "../telemetry.js";

export type RetryPolicy = {
  /** Attempts in all, the first included. */
  attempts: number;
  initialDelayMs: number;
  /** Delays double from initialDelayMs up to this. */
  maxDelayMs: number;
};
/** Until stored: the buffer bound, not an attempt count, is what limits an outage's cost. */
export const defaultPublishRetry: RetryPolicy = { attempts: Number.POSITIVE_INFINITY, initialDelayMs: 100, maxDelayMs: 2000 };
export type PublishOutcome = { published: true; seq: number; duplicate: boolean } | { published: false; error: unknown };

export type EventPublisherOptions = {
  js: Pick<JetStreamClient, "publish">;
  /** Core publish of a verdict's notice to waiting clients (the connection's publish); without it, none is sent. */
  notify?: (subject: string, body: string) => void;
  /** Reads the stream's last event of an observation (hasVerdict); without it, hasVerdict says false. */
  jsm?: Pick<JetStreamManager, "streams">;
  /** Signs every event, and decides which verdict on the stream counts as the service's (hasVerdict). Default: nothing signed. */
  signer?: ServiceSigner;
  /** What may wait for the stream before progress and stall notices are dropped (default defaultEventBufferLimits). */
  buffer?: Partial<EventBufferLimits>;
  prefix?: string;
  retry?: RetryPolicy;
  /** How long to wait for the stream's acknowledgement of one attempt. */
  ackTimeoutMs?: number;
  metrics?: BusMetrics;
  logger?: Logger;
  /** Waits between attempts; tests pass one that returns at once. */
  delay?: (ms: number) => Promise<void>;
};

export type EventPublisher = {
  /** Resolves once the event is stored (or given up on); never rejects. */
  publish(event: ObservationEvent): Promise<PublishOutcome>;
  /** Resolves when every publish started so far has finished. */
  flush(): Promise<void>;
  /** Whether the stream's last event of the observation is its verdict, signed by a key the service trusts. */
  hasVerdict(deployment: string, observationId: string, tenant: string | undefined): Promise<boolean>;
  /** Drops what still waits for this observation (it went to another replica); a verdict is never dropped. */
  discard(observationId: string): void;
  /** Events accepted and not yet stored. */
  readonly buffered: number;
};

/**
 * The Nats-Msg-Id the stream de-duplicates on. An observation has one verdict (a terminal outcome
 * never changes) and reaches each stage once, so a re-sent verdict or stage is the same message
 * whoever sends it; progress events and stall notices are told apart by their whole content, time included.
 *
 * A signed verdict or stage event's id ends with the first 32 characters of its signature (192
 * bits): the same event signed again with the same key has the same signature (Ed25519 is
 * deterministic), so a re-send is still de-duplicated, while nobody without the key can compute
 * the id before the service publishes, and so nobody can make the stream drop the service's
 * verdict as a duplicate of a forgery published first under `<id>.verdict`. (A progress event's
 * content hash covers its signature already.)
 */
export function eventMessageId(event: ObservationEvent): string {
  const signed = event.signature === undefined ? "" : `.${event.signature.sig.slice(0, 32)}`;
  switch (event.type) {
    case "verdict":
      return `${event.observationId}.verdict${signed}`;
    case "stage":
      return `${event.observationId}.stage.${event.stage}${signed}`;
    case "progress":
    case "stalled":
      return `${event.observationId}.${event.type}.${sha256Hex(canonicalJson(event))}`;
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
  const buffer = new EventBuffer({ ...defaultEventBufferLimits, ...options.buffer });
  const signer = options.signer ?? unsignedService;
  /** The publishes of each observation not finished yet: its verdict waits for them, flush() for all. */
  const pending = new Map<string, Set<Promise<PublishOutcome>>>();
  const discarded = new Set<string>();
  /** Progress events dropped of each observation since the last event of it that got in: logged once, not per drop. */
  const dropping = new Map<string, number>();
  const showBuffered = () => metrics.eventsBuffered(buffer.events, buffer.bytes);

  type Prepared = { event: ObservationEvent; subject: string; body: string; msgID: string };
  const attempt = async ({ event, subject, body, msgID }: Prepared): Promise<PublishOutcome> => {
    const log = { observationId: event.observationId, deployment: event.deployment, type: event.type };
    let lastError: unknown;
    for (let n = 1; n <= retry.attempts; n++) {
      if (event.type !== "verdict" && discarded.has(event.observationId)) return { published: false, error: new Error("discarded") };
      try {
        const ack = await options.js.publish(subject, body, { msgID, timeout: ackTimeoutMs });
        return { published: true, seq: ack.seq, duplicate: ack.duplicate };
      } catch (error) {
        lastError = error;
        metrics.publishFailed();
        if (n < retry.attempts) {
          // One line per outage and event, not one per attempt.
          if (n === 1) logger.warn({ ...log, err: error }, "event publish failed; retrying until NATS takes it");
          await delay(retryDelayMs(retry, n));
        }
      }
    }
    logger.error({ ...log, err: lastError, attempts: retry.attempts }, "event publish failed; giving up");
    return { published: false, error: lastError };
  };

  const prepare = (unsigned: ObservationEvent): Prepared | { error: unknown } => {
    const event = signer.sign(unsigned);
    try {
      return { event, subject: names.eventSubject(event.deployment, event.observationId, event.tenant), body: JSON.stringify(event), msgID: eventMessageId(event) };
    } catch (error) {
      logger.error({ observationId: event.observationId, deployment: event.deployment, type: event.type, err: error }, "event not published: invalid subject");
      return { error };
    }
  };

  const sendNotice = ({ subject, body, event }: Prepared) => {
    try {
      options.notify?.(names.verdictNotice(subject), body);
    } catch (error) {
      // A client that misses the notice reads the stream's copy; the notice is only the fast path.
      logger.warn({ observationId: event.observationId, err: error }, "verdict notice not sent; clients read it from the stream");
    }
  };

  /** A droppable event found no room: counted, and logged for the first of a run of drops. */
  const drop = (event: ObservationEvent, bound: string): Promise<PublishOutcome> => {
    const id = event.observationId;
    const before = dropping.get(id) ?? 0;
    dropping.set(id, before + 1);
    metrics.eventDropped(event.tenant);
    if (before === 0) {
      // One line a run of drops: a flood must not turn into as many log lines.
      const log = { observationId: id, deployment: event.deployment, tenant: event.tenant, bound, buffered: buffer.events, bufferedBytes: buffer.bytes };
      logger.warn(log, "event buffer full; this observation's progress and stall notices are dropped until there is room (stagewatch_events_dropped_total)");
    }
    return Promise.resolve({ published: false, error: new Error(`event buffer full (${bound})`) });
  };

  const resumed = (event: ObservationEvent) => {
    const dropped = dropping.get(event.observationId);
    if (dropped === undefined) return;
    dropping.delete(event.observationId);
    logger.info({ observationId: event.observationId, deployment: event.deployment, tenant: event.tenant, dropped }, "event buffer has room again; progress events were dropped before this one");
  };

  /** Whether the stream's last event on the subject is a verdict the service signed. */
  const lastIsVerdict = async (jsm: Pick<JetStreamManager, "streams">, stream: string, subject: string, deployment: string, observationId: string): Promise<boolean> => {
    try {
      const message = await jsm.streams.getMessage(stream, { last_by_subj: subject });
      if (message === null) return false;
      let event: unknown;
      try {
        event = message.json();
      } catch {
        return false;
      }
      const parsed = parseWith(ObservationEvent, event);
      if (!parsed.ok || parsed.value.type !== "verdict") return false;
      // Anyone who may publish on the subject can put a "verdict" there; only one the service
      // signed (this replica's key, or one it keeps trusting for a rotation) means its own went out.
      const trust = signer.trustsEvent(event, observationId);
      if (!trust.trusted) {
        metrics.untrustedVerdictFound();
        logger.warn({ observationId, deployment, problem: trust.problem, reason: trust.message }, "the stream's last event is a verdict the service did not sign");
      }
      return trust.trusted;
    } catch (error) {
      // 10037: no message on that subject.
      if (error instanceof JetStreamApiError && error.code === 10037) return false;
      throw error;
    }
  };

  return {
    publish(event) {
      const prepared = prepare(event);
      if ("error" in prepared) return Promise.resolve({ published: false, error: prepared.error });
      const bytes = Buffer.byteLength(prepared.body);
      const droppable = event.type === "progress" || event.type === "stalled";
      const refused = buffer.take(event.tenant, bytes, droppable);
      if (refused !== undefined) return drop(event, refused);
      resumed(event);
      showBuffered();
      const id = event.observationId;
      const earlier = pending.get(id) ?? new Set<Promise<PublishOutcome>>();
      pending.set(id, earlier);
      let next: Promise<PublishOutcome>;
      if (event.type === "verdict") {
        sendNotice(prepared);
        next = earlier.size === 0 ? attempt(prepared) : Promise.allSettled([...earlier]).then(() => attempt(prepared));
      } else next = attempt(prepared);
      next = next.finally(() => {
        buffer.release(event.tenant, bytes);
        showBuffered();
      });
      earlier.add(next);
      void next.then(() => {
        earlier.delete(next);
        if (earlier.size > 0 || pending.get(id) !== earlier) return;
        pending.delete(id);
        discarded.delete(id);
      });
      return next;
    },
    async flush() {
      await Promise.all([...pending.values()].flatMap((publishes) => [...publishes]));
    },
    async hasVerdict(deployment, observationId, tenant) {
      const { jsm } = options;
      if (!jsm) return false;
      const subject = names.eventSubject(deployment, observationId, tenant);
      // A tenant's events are in its own stream (eventStream.ts); in the one stream when the service
      // runs without a tenants file and adopts an observation a start with one accepted.
      const streams = tenant === undefined ? [names.eventStream] : [names.tenantEventStream(tenant), names.eventStream];
      for (const stream of streams) {
        try {
          return await lastIsVerdict(jsm, stream, subject, deployment, observationId);
        } catch (error) {
          if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound) continue;
          throw error;
        }
      }
      return false;
    },
    discard(observationId) {
      dropping.delete(observationId);
      if (pending.has(observationId)) discarded.add(observationId);
    },
    get buffered() {
      return buffer.events;
    },
  };
}

// The service side of `observe`, `cancel` and `get` (SPEC section 7). Whatever arrives, the
// requester gets an answer: a body that is too large, not JSON, or not a valid request is an
// error reply naming the field, and a service that throws becomes `internal`, never silence.
// Each message is handled on its own promise, so a slow observe (a KV round trip, a CAS retry)
// never holds up a get behind it, started in bounded slices (requestQueue.ts) so a flood never
// holds the event loop; the NATS queue group spreads requests over replicas.
import { silentLogger, type Logger } from "../logging/index.js";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { z } from "zod";
import {
  CancelRequest,
  GetRequest,
  maxBodyBytes as defaultMaxBodyBytes,
  ObservationRequest,
  type ErrorCode,
  type ErrorReply,
  type FieldIssue,
  type ObservationVerdict,
} from "../verdicts/schemas.js";
import { describeIssues, parseWith } from "../verdicts/validation.js";
import { RequestQueue, type RequestQueueOptions } from "./requestQueue.js";
import { busNames, defaultSubjectPrefix, queueGroup } from "./subjects.js";
import { noopBusMetrics, type BusMetrics } from "./telemetry.js";

export type ObserveResult =
  | { ok: true; observationId: string; replay: boolean }
  | { ok: false; code: "conflict" | "invalid_request" | "unavailable" | "too_large" | "quota"; message: string; issues?: FieldIssue[] };

/** What the engine implements; the bus only decodes, validates and answers. */
export interface ObservationService {
  observe(request: ObservationRequest): Promise<ObserveResult>;
  /** undefined: no such observation. Cancelling a decided observation returns its verdict unchanged. */
  cancel(observationId: string, reason: string | undefined): Promise<ObservationVerdict | undefined>;
  /** undefined: no such observation. */
  get(observationId: string): Promise<ObservationVerdict | undefined>;
}

export type RequestServerOptions = {
  connection: NatsConnection;
  service: ObservationService;
  prefix?: string;
  /** Bodies above this are `too_large` (SPEC: 1 MiB). The NATS server's max_payload must be larger for this answer to be ours. */
  maxBodyBytes?: number;
  logger?: Logger;
  metrics?: BusMetrics;
  /** How many requests are started a turn, handled at once, and may wait (requestQueue.ts). */
  queue?: RequestQueueOptions;
};

export type RequestServer = {
  /** Stops taking requests, answers the ones already received, then resolves. */
  stop(): Promise<void>;
};

type Reply = { ok: true; [field: string]: unknown } | ErrorReply;

export function errorReply(code: ErrorCode, message: string, issues: readonly FieldIssue[] = []): ErrorReply {
  return { ok: false, error: { code, message, issues: [...issues] } };
}

/** Size, then JSON, then schema: each failure is an error reply with the offending path. */
export function decodeBody<S extends z.ZodType>(
  data: Uint8Array,
  schema: S,
  what: string,
  maxBytes: number,
): { ok: true; value: z.output<S> } | { ok: false; reply: ErrorReply } {
  if (data.length > maxBytes) {
    const issue = { path: "(body)", message: `${data.length} bytes; at most ${maxBytes}` };
    return { ok: false, reply: errorReply("too_large", `${what} is too large`, [issue]) };
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const issue = { path: "(body)", message: `malformed JSON: ${detail}` };
    return { ok: false, reply: errorReply("invalid_request", `${what} is not JSON`, [issue]) };
  }
  const parsed = parseWith(schema, json);
  if (parsed.ok) return { ok: true, value: parsed.value };
  return { ok: false, reply: errorReply("invalid_request", `invalid ${what}: ${describeIssues(parsed.issues)}`, parsed.issues) };
}

export function startRequestServer(options: RequestServerOptions): RequestServer {
  const { connection, service } = options;
  const names = busNames(options.prefix ?? defaultSubjectPrefix);
  const maxBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics ?? noopBusMetrics;

  const observe = async (data: Uint8Array): Promise<Reply> => {
    const decoded = decodeBody(data, ObservationRequest, "observation request", maxBytes);
    if (!decoded.ok) {
      metrics.requestAnswered("rejected");
      return decoded.reply;
    }
    const result = await service.observe(decoded.value);
    if (!result.ok) {
      metrics.requestAnswered("rejected");
      return errorReply(result.code, result.message, result.issues);
    }
    metrics.requestAnswered(result.replay ? "replayed" : "accepted");
    const { deployment, require, resources } = decoded.value;
    logger.info(
      { observationId: result.observationId, deployment, require, resources: resources.length, replay: result.replay },
      result.replay ? "request replayed" : "request accepted",
    );
    return { ok: true, observationId: result.observationId, replay: result.replay };
  };

  const found = (observationId: string, verdict: ObservationVerdict | undefined): Reply =>
    verdict === undefined
      ? errorReply("not_found", `no observation ${observationId}`, [{ path: "observationId", message: "no such observation" }])
      : { ok: true, verdict };

  const cancel = async (data: Uint8Array): Promise<Reply> => {
    const decoded = decodeBody(data, CancelRequest, "cancel request", maxBytes);
    if (!decoded.ok) return decoded.reply;
    const { observationId, reason } = decoded.value;
    return found(observationId, await service.cancel(observationId, reason));
  };

  const get = async (data: Uint8Array): Promise<Reply> => {
    const decoded = decodeBody(data, GetRequest, "get request", maxBytes);
    if (!decoded.ok) return decoded.reply;
    return found(decoded.value.observationId, await service.get(decoded.value.observationId));
  };

  const queue = new RequestQueue(options.queue);

  const answer = async (msg: Msg, handle: (data: Uint8Array) => Promise<Reply>): Promise<void> => {
    let reply: Reply;
    try {
      reply = await handle(msg.data);
    } catch (error) {
      // The error may quote cluster or request details; it goes to the log, the requester gets a
      // stable sentence.
      logger.error({ err: error, subject: msg.subject }, "observation service failed; answered internal");
      reply = errorReply("internal", "the observation service failed; see its log");
    }
    if (!reply.ok && reply.error.code !== "internal") {
      logger.info({ subject: msg.subject, code: reply.error.code, issues: reply.error.issues }, "request refused");
    }
    if (msg.reply === undefined) return;
    try {
      msg.respond(JSON.stringify(reply));
    } catch (error) {
      logger.warn({ err: error, subject: msg.subject }, "could not send reply");
    }
  };

  const subscribe = (subject: string, handle: (data: Uint8Array) => Promise<Reply>): Subscription =>
    connection.subscribe(subject, {
      queue: queueGroup,
      callback: (error, msg) => {
        if (error) {
          logger.error({ err: error, subject }, "subscription failed");
          return;
        }
        if (queue.offer(() => answer(msg, handle))) return;
        metrics.requestAnswered("rejected");
        const message = `${queue.maxWaiting} requests are waiting to be handled (the service's request queue); retry later`;
        if (msg.reply !== undefined) msg.respond(JSON.stringify(errorReply("quota", message, [{ path: "(request)", message }])));
      },
    });

  const subscriptions = [subscribe(names.observe, observe), subscribe(names.cancel, cancel), subscribe(names.get, get)];

  return {
    async stop() {
      await Promise.allSettled(subscriptions.map((s) => (s.isClosed() ? Promise.resolve() : s.drain())));
      await queue.idle();
    },
  };
}

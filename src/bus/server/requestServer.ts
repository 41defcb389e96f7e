// The service side of `observe`, `cancel`, `get` and `list` (SPEC section 7). Whatever arrives, the
// requester gets an answer: a caller the NATS server did not vouch for is `forbidden` (with a
// tenants file: callerIdentity.ts), a body that is too large, not JSON, or not a valid request is
// an error reply naming the field, and a service that throws becomes `internal`, never silence.
// Each message is handled on its own promise, so a slow observe (a KV round trip, a CAS retry)
// never holds up a get behind it, started in bounded slices (requestQueue.ts) so a flood never
// holds the event loop; the NATS queue group spreads requests over replicas.
//
// One caller cannot starve another: as a request arrives, before it is read, it is counted against
// its caller's bounds (the tenant its subject names: requests a second of that kind, requests
// pending; arrivalLimits.ts) and queued in its caller's lane, lanes served round-robin. Refusals are
// logged by sample (refusalLog.ts).
import { silentLogger, type Logger } from "../../logging/index.js";
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { asyncScheduler, type SchedulerLike } from "rxjs";
import type { z } from "zod";
import { callerLabel, defaultCallerQuotas, soleCaller, type Caller, type CallerQuotas, type TenantDirectory } from "../../tenants/index.js";
import {
  CancelRequest,
  GetRequest,
  ListRequest,
  maxBodyBytes as defaultMaxBodyBytes,
  ObservationRequest,
  type ErrorCode,
  type ErrorReply,
  type FieldIssue,
  type ObservationVerdict,
} from "../../verdicts/contract/schemas.js";
import { describeIssues, parseWith } from "../../verdicts/contract/validation.js";
import { ArrivalLimits, type ArrivingCaller } from "./arrivalLimits.js";
import { identifyCaller, requestInfoHeader } from "./callerIdentity.js";
import { inProgressItem, type InProgressListing, type ListScope } from "../stores/inProgress.js";
import { RefusalLog } from "./refusalLog.js";
import { RequestQueue, type RequestQueueOptions } from "./requestQueue.js";
import { busNames, defaultSubjectPrefix, queueGroup, requestKinds, type RequestKind } from "../subjects.js";
import { noopBusMetrics, type BusMetrics } from "../telemetry.js";

export type ObserveResult =
  | { ok: true; observationId: string; replay: boolean }
  | { ok: false; code: "conflict" | "invalid_request" | "forbidden" | "unavailable" | "too_large" | "quota"; message: string; issues?: FieldIssue[] };

/**
 * What the engine implements; the bus only identifies the caller, decodes, validates and answers.
 * An observation the caller may not see is answered as missing (undefined), never as forbidden.
 */
export interface ObservationService {
  observe(request: ObservationRequest, caller: Caller): Promise<ObserveResult>;
  /** undefined: no such observation. Cancelling a decided observation returns its verdict unchanged. */
  cancel(observationId: string, reason: string | undefined, caller: Caller): Promise<ObservationVerdict | undefined>;
  /** undefined: no such observation. */
  get(observationId: string, caller: Caller): Promise<ObservationVerdict | undefined>;
}

export type RequestServerOptions = {
  connection: NatsConnection;
  service: ObservationService;
  prefix?: string;
  /** Bodies above this are `too_large` (SPEC: 1 MiB). The NATS server's max_payload must be larger for this answer to be ours. */
  maxBodyBytes?: number;
  /**
   * The tenants file: requests are then taken on `<prefix>.<request>.<tenant>` only, from callers
   * the NATS server identified (callerIdentity.ts). Undefined: one caller, as before tenants.
   */
  tenants?: TenantDirectory;
  /** The observations in progress the caller may see, for `list` (inProgress.ts, listVisible); without it `list` is `unavailable`. */
  inProgress?: (scope: ListScope) => Promise<InProgressListing>;
  logger?: Logger;
  metrics?: BusMetrics;
  /** How many requests are started a turn, handled at once, and may wait (requestQueue.ts). */
  queue?: RequestQueueOptions;
  /** Every caller's quotas for the service as a whole where its tenant's give none (arrivalLimits.ts). Default `defaultCallerQuotas`. */
  quotas?: CallerQuotas;
  /** Replicas sharing the quotas (serve --replicas): each takes its share. Default 1. */
  replicas?: number;
  /** The clock of the request buckets and of the refusal log's interval. Default: the real one. */
  scheduler?: SchedulerLike;
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
  const scheduler = options.scheduler ?? asyncScheduler;
  const queue = new RequestQueue(options.queue);
  const limits = new ArrivalLimits({ defaults: options.quotas ?? defaultCallerQuotas, replicas: options.replicas ?? 1, now: () => scheduler.now(), queue: () => queue });
  const refusals = new RefusalLog({ logger, scheduler });

  const observe = async (data: Uint8Array, caller: Caller): Promise<Reply> => {
    const decoded = decodeBody(data, ObservationRequest, "observation request", maxBytes);
    if (!decoded.ok) {
      metrics.requestAnswered("rejected");
      return decoded.reply;
    }
    const result = await service.observe(decoded.value, caller);
    if (!result.ok) {
      metrics.requestAnswered("rejected");
      return errorReply(result.code, result.message, result.issues);
    }
    metrics.requestAnswered(result.replay ? "replayed" : "accepted");
    const { deployment, require, resources } = decoded.value;
    logger.info(
      { observationId: result.observationId, deployment, require, resources: resources.length, replay: result.replay, ...(caller.tenant !== undefined && { tenant: caller.tenant }) },
      result.replay ? "request replayed" : "request accepted",
    );
    return { ok: true, observationId: result.observationId, replay: result.replay };
  };

  const found = (observationId: string, verdict: ObservationVerdict | undefined): Reply =>
    verdict === undefined
      ? errorReply("not_found", `no observation ${observationId}`, [{ path: "observationId", message: "no such observation" }])
      : { ok: true, verdict };

  const cancel = async (data: Uint8Array, caller: Caller): Promise<Reply> => {
    const decoded = decodeBody(data, CancelRequest, "cancel request", maxBytes);
    if (!decoded.ok) return decoded.reply;
    const { observationId, reason } = decoded.value;
    return found(observationId, await service.cancel(observationId, reason, caller));
  };

  const get = async (data: Uint8Array, caller: Caller): Promise<Reply> => {
    const decoded = decodeBody(data, GetRequest, "get request", maxBytes);
    if (!decoded.ok) return decoded.reply;
    return found(decoded.value.observationId, await service.get(decoded.value.observationId, caller));
  };

  // The caller's observations only (every tenant's for an admin), so that no team needs to read
  // the KV buckets; scoped before anything is read (listVisible).
  const list = async (data: Uint8Array, caller: Caller): Promise<Reply> => {
    const decoded = decodeBody(data, ListRequest, "list request", maxBytes);
    if (!decoded.ok) return decoded.reply;
    if (!options.inProgress) return errorReply("unavailable", "this service does not list observations");
    const listing = await options.inProgress({ caller, deployment: decoded.value.deployment });
    return { ok: true, items: listing.observations.map(inProgressItem), unreadable: listing.unreadable };
  };

  const handlers: Record<RequestKind, (data: Uint8Array, caller: Caller) => Promise<Reply>> = { observe, cancel, get, list };

  /**
   * Who a request is from, as its subject says, before anything of it is read: the lane it waits
   * in and the quotas it counts against. A subject naming no tenant of the file (only a client of
   * the service's own account can send one: it is refused once handled) counts as one caller.
   */
  const arrivingCaller = (tenantToken: string | undefined): ArrivingCaller => {
    if (!options.tenants) return { id: soleCaller.id, who: callerLabel(soleCaller), quotas: undefined };
    const tenant = tenantToken === undefined ? undefined : options.tenants.get(tenantToken);
    if (tenant === undefined) return { id: "(no tenant)", who: "a caller of no tenant", quotas: undefined };
    return { id: tenant.id, who: callerLabel(tenant), quotas: tenant.quotas };
  };

  const refused = (from: ArrivingCaller, kind: RequestKind, msg: Msg, reply: ErrorReply, limit?: string): void => {
    const { code, message, issues } = reply.error;
    refusals.note({ caller: from.id, kind, code, limit, subject: msg.subject, message, issues });
  };

  const answer = async (msg: Msg, kind: RequestKind, tenantToken: string | undefined, from: ArrivingCaller): Promise<void> => {
    let reply: Reply;
    try {
      const identified = identifyCaller(options.tenants, { tenantToken, requestInfo: msg.headers?.get(requestInfoHeader), reply: msg.reply });
      if (identified.ok) {
        reply = await handlers[kind](msg.data, identified.caller);
      } else {
        if (kind === "observe") metrics.requestAnswered("rejected");
        reply = errorReply("forbidden", `request refused: ${identified.message}`, identified.issues);
      }
    } catch (error) {
      // The error may quote cluster or request details; it goes to the log, the requester gets a
      // stable sentence.
      logger.error({ err: error, subject: msg.subject }, "observation service failed; answered internal");
      reply = errorReply("internal", "the observation service failed; see its log");
    }
    if (!reply.ok && reply.error.code !== "internal") refused(from, kind, msg, reply);
    respond(msg, reply);
  };

  const respond = (msg: Msg, reply: Reply): void => {
    if (msg.reply === undefined) return;
    try {
      msg.respond(JSON.stringify(reply));
    } catch (error) {
      logger.warn({ err: error, subject: msg.subject }, "could not send reply");
    }
  };

  /** Past a bound at arrival: answered at once, nothing of the request read. */
  const refuseOnArrival = (msg: Msg, kind: RequestKind, from: ArrivingCaller, limit: string, message: string): void => {
    if (kind === "observe") metrics.requestAnswered("rejected");
    const reply = errorReply("quota", message, [{ path: "(request)", message }]);
    refused(from, kind, msg, reply, limit);
    respond(msg, reply);
  };

  /** `tenant`: the subscription takes `<prefix>.<kind>.<tenant>`, whose last token names the tenant. */
  const subscribe = (subject: string, kind: RequestKind, tenant: boolean): Subscription =>
    connection.subscribe(subject, {
      queue: queueGroup,
      callback: (error, msg) => {
        if (error) {
          logger.error({ err: error, subject }, "subscription failed");
          return;
        }
        const tenantToken = tenant ? msg.subject.slice(msg.subject.lastIndexOf(".") + 1) : undefined;
        const from = arrivingCaller(tenantToken);
        const arrival = limits.arrive(from, kind);
        if (!arrival.ok) {
          refuseOnArrival(msg, kind, from, arrival.refusal.limit, arrival.refusal.message);
          return;
        }
        if (queue.offer(from.id, () => answer(msg, kind, tenantToken, from).finally(arrival.done))) return;
        arrival.done();
        const message = `the replica's queue has ${queue.waiting} of ${queue.maxWaiting} requests waiting, every caller together (its limit); retry later`;
        refuseOnArrival(msg, kind, from, "queue", message);
      },
    });

  // With a tenants file the plain subjects are still answered, with a refusal that says how to
  // ask, rather than left without responders.
  const subscriptions = requestKinds.flatMap((kind) => [
    subscribe(names[kind], kind, false),
    ...(options.tenants ? [subscribe(names.anyTenantRequest(kind), kind, true)] : []),
  ]);

  return {
    async stop() {
      await Promise.allSettled(subscriptions.map((s) => (s.isClosed() ? Promise.resolve() : s.drain())));
      await queue.idle();
      refusals.stop();
    },
  };
}

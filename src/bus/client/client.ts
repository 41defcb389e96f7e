// The client apply tools (and `stagewatch observe`) use: send a request, follow its events, get
// the verdict. Events are read from the event stream with an ordered consumer that starts at the
// observation's first event, so following an observation after its verdict was published still
// yields that verdict: there is no race between "request accepted" and "subscribed".
//
// Given the service's public keys (`verifyKey`, else learned from the service where only it can
// answer: keyDiscovery.ts), the client believes only what the service signed
// about the observation it asked about: any other event on the subject (unsigned, signed by
// another key, altered, copied from another observation) is treated as absent, counted
// (`rejected`) and logged once per observation, and the client keeps reading. The service's own
// verdict is on the stream under a message id no one else can take first (eventMessageId), so a
// forged `succeeded` published before it can neither end the observation nor hide the real one.
//
// A team whose NATS account holds no copy of the service's stream (the account layout of
// docs/operator/tenants-and-trust.md: each team is exported its own events subjects, nothing more)
// follows by subscribing to them and asking `get` once subscribed: a verdict published before the
// subscription is in the record, and one published after it arrives on the subject.
import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { connect, RequestError, TimeoutError, type NatsConnection } from "@nats-io/transport-node";
import type { z } from "zod";
import { silentLogger, type Logger } from "../../logging/index.js";
import { checkEvent, checkVerdict, type Expected, type Trust } from "../../signing/trust.js";
import { verifyKeysFromEnv, verifyKeysOf, type VerifyKey } from "../../signing/keys.js";
import { configuredVerification, learnVerifyKeys, type Verification } from "./keyDiscovery.js";
import {
  CancelReply,
  GetReply,
  ListReply,
  maxBodyBytes,
  ObservationEvent,
  ObservationId,
  ObservationRequest,
  ObserveReply,
  type InProgressItem,
  type ObservationRequestInput,
  type ObservationVerdict,
} from "../../verdicts/contract/schemas.js";
import { budgetDeadline } from "../../verdicts/contract/budget.js";
import { describeIssues, parseWith } from "../../verdicts/contract/validation.js";
import {
  errorFromReply,
  ObservationRejectedError,
  ObserverInternalError,
  ObserverUnavailableError,
  VerdictVerificationError,
} from "./clientErrors.js";
import { NatsConfigError, NatsConnectionConfig, toConnectionOptions, type NatsConnectionConfigInput } from "../connectionOptions.js";
import { EventQueue } from "./eventQueue.js";
import { warmUpVerdictParsing } from "./verdictWarmUp.js";
import { busNames, defaultSubjectPrefix, subjectPrefixFromEnv, type BusNames } from "../subjects.js";

export type ObserverSettings = {
  /** Default: connectObserver reads $STAGEWATCH_SUBJECT_PREFIX, else `stagewatch`; createObserver uses `stagewatch`. */
  prefix?: string;
  /** How long to wait for the service to answer a request. Default 10 s. */
  requestTimeoutMs?: number;
  /**
   * After the request's budget has run out, how long to wait for the verdict before asking the
   * service directly and, if it has none, giving up with ObserverUnavailableError. A live service
   * publishes `timed_out` at the deadline; this only ends a wait on a service that died. Default 30 s.
   */
  verdictGraceMs?: number;
  /**
   * The service's public keys (nkeys, `N…`; several during a key rotation): verdicts and events
   * are then believed only when signed by one of them. Default: connectObserver reads
   * $STAGEWATCH_VERIFY_KEY (comma or white space separated); createObserver verifies nothing.
   */
  verifyKey?: string | readonly string[];
  /**
   * connectObserver given no key (none here, none in the environment): ask the service for its
   * keys on `<prefix>.keys` and verify with them; `verification` says what that proves (only in
   * the account layout are they the service's word). Default true; createObserver never learns.
   */
  learnVerifyKey?: boolean;
  /** Where an event or answer that failed verification is reported (once per observation followed). Default: nowhere. */
  logger?: Logger;
  /**
   * The W3C trace context a request joins when it names none itself (its `traceparent`,
   * `tracestate`): the service then exports the observation as spans under it. `activeTraceContext`
   * reads OpenTelemetry's active span. Default: none.
   */
  traceContext?: () => TraceContextFields | undefined;
};

/** A request's trace context fields, as `traceContext` gives them. */
export type TraceContextFields = { traceparent: string; tracestate?: string };

export type ObserverOptions = NatsConnectionConfigInput & ObserverSettings;

export type ObservationFollow = {
  /** Every event of the observation from its first, ending after the verdict. Read it once. */
  progress: AsyncIterable<ObservationEvent>;
  verdict: Promise<ObservationVerdict>;
};

export type ObservationRun = ObservationFollow & { observationId: string; replay: boolean };

export type Observer = {
  /** Throws ObservationRejectedError, ObservationConflictError, ObserverUnavailableError or ObserverInternalError. */
  observe(request: ObservationRequestInput): Promise<ObservationRun>;
  /** Follows an observation by id, e.g. one started by another process. `waitMs` bounds the wait for its verdict. */
  follow(observationId: string, options?: { waitMs?: number }): ObservationFollow;
  /** The verdict after cancelling (unchanged if it was already decided); undefined if there is no such observation. */
  cancel(observationId: string, reason?: string): Promise<ObservationVerdict | undefined>;
  get(observationId: string): Promise<ObservationVerdict | undefined>;
  /**
   * The observations in progress the service shows this caller (its tenant's; every one to an
   * admin or without a tenants file), oldest first; `unreadable` names records it could not read.
   */
  list(options?: { deployment?: string }): Promise<{ items: InProgressItem[]; unreadable: { observationId: string; problem: string }[] }>;
  /** Stops following; unsettled verdicts reject with ObserverUnavailableError. Closes the connection if the observer opened it. */
  close(): Promise<void>;
  /** Whether verdicts and events are verified (a `verifyKey` was given, or one learned). */
  readonly verifies: boolean;
  /**
   * Where the keys came from and whether a verdict they verify is the service's word: not when
   * none, nor when learned where anyone holding this client's credentials could have answered.
   * Act on a `succeeded` verdict only when `trusted`.
   */
  readonly verification: Verification;
  /** Events and answers treated as absent because they failed verification, since the observer was made. */
  readonly rejected: number;
};

/** Connects to NATS and returns an observer owning that connection. */
export async function connectObserver(options: ObserverOptions): Promise<Observer> {
  const { prefix, requestTimeoutMs, verdictGraceMs, verifyKey, learnVerifyKey, logger, traceContext, ...connection } = options;
  const config = parseWith(NatsConnectionConfig, connection);
  if (!config.ok) throw new NatsConfigError(config.issues);
  const resolvedPrefix = prefix ?? subjectPrefixFromEnv(process.env);
  // A prefix that is no subject token, or a key that is no public key, throws here, before a
  // connection is opened and left behind.
  busNames(resolvedPrefix);
  const keys = verifyKey === undefined ? verifyKeysFromEnv(process.env) : keysOf(verifyKey);
  let nc: NatsConnection;
  try {
    nc = await connect(toConnectionOptions(config.value));
  } catch (cause) {
    throw new ObserverUnavailableError(`cannot connect to NATS at ${config.value.servers.join(", ")}`, { cause });
  }
  const settings = { prefix: resolvedPrefix, requestTimeoutMs, verdictGraceMs, logger, traceContext };
  let verification: Verification;
  try {
    verification =
      keys.length > 0 || learnVerifyKey === false ? configuredVerification(keys) : await learnVerifyKeys(nc, busNames(resolvedPrefix), requestTimeoutMs ?? defaultRequestTimeoutMs);
  } catch (error) {
    await nc.close();
    throw error;
  }
  return observerOn(nc, settings, verification, () => nc.close());
}

/** An observer on a connection the caller owns (the demo shares the service's). */
export function createObserver(nc: NatsConnection, settings: ObserverSettings = {}): Observer {
  return observerOn(nc, settings, configuredVerification(keysOf(settings.verifyKey ?? [])), async () => {});
}

const defaultRequestTimeoutMs = 10_000;

const keysOf = (verifyKey: string | readonly string[]): VerifyKey[] => verifyKeysOf(typeof verifyKey === "string" ? verifyKey : verifyKey.join(","));

function observerOn(nc: NatsConnection, settings: ObserverSettings, verification: Verification, closeConnection: () => Promise<void>): Observer {
  const { keys } = verification;
  const names = busNames(settings.prefix ?? defaultSubjectPrefix);
  const requestTimeoutMs = settings.requestTimeoutMs ?? defaultRequestTimeoutMs;
  const verdictGraceMs = settings.verdictGraceMs ?? 30_000;
  const logger = settings.logger ?? silentLogger;
  const js = jetstream(nc);
  const stops = new Set<(reason: Error) => void>();
  let rejected = 0;

  /** An event or answer that failed verification: counted, and logged unless `quiet` (once per observation is enough). */
  const refuse = (trust: Extract<Trust, { trusted: false }>, what: string, observationId: string, quiet = false) => {
    rejected += 1;
    if (!quiet) {
      logger.warn(
        { observationId, problem: trust.problem, reason: trust.message },
        `ignored ${what} of observation ${observationId} that failed verification (${trust.message})`,
      );
    }
  };

  /**
   * The verdict of a `get` or `cancel` answer, believed only when the service signed it about the
   * observation asked for. A verified verdict is handed on as it arrived rather than as the schema
   * parsed it, so the fields of a newer service survive and the signature still covers the copy a
   * caller keeps (observe --verdict-file).
   */
  const believed = (raw: unknown, parsed: ObservationVerdict, expected: Expected): ObservationVerdict => {
    if (keys.length === 0) return parsed;
    const trust = checkVerdict(raw, keys, expected);
    if (trust.trusted) return raw as ObservationVerdict;
    refuse(trust, "an answer", expected.observationId);
    throw new VerdictVerificationError(`the answer about observation ${expected.observationId} failed verification: ${trust.message}`);
  };

  const request = async <S extends z.ZodType>(subject: string, body: string, replySchema: S): Promise<{ reply: z.output<S>; json: unknown }> => {
    let text: string;
    try {
      text = (await nc.request(subject, body, { timeout: requestTimeoutMs })).string();
    } catch (cause) {
      if (cause instanceof RequestError && cause.isNoResponders()) {
        throw new ObserverUnavailableError(`no stagewatch service is listening on ${subject}`, { cause });
      }
      if (cause instanceof TimeoutError) {
        throw new ObserverUnavailableError(`stagewatch did not answer on ${subject} within ${requestTimeoutMs} ms`, { cause });
      }
      throw new ObserverUnavailableError(`request on ${subject} failed`, { cause });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw new ObserverInternalError(`unreadable reply on ${subject}`, { cause });
    }
    const reply = parseWith(replySchema, json);
    if (!reply.ok) throw new ObserverInternalError(`unexpected reply on ${subject}: ${describeIssues(reply.issues)}`);
    return { reply: reply.value, json };
  };

  const verdictOrUndefined = async (subject: string, body: { observationId: string; reason?: string | undefined }, schema: typeof GetReply | typeof CancelReply, expected: Expected = { observationId: body.observationId }) => {
    const { reply, json } = await request(subject, JSON.stringify(body), schema);
    if (reply.ok) return believed((json as { verdict?: unknown }).verdict, reply.verdict, expected);
    if (reply.error.code === "not_found") return undefined;
    throw errorFromReply(reply.error);
  };

  const get = (observationId: string) => verdictOrUndefined(names.get, { observationId }, GetReply);

  /** Follows an observation, believing (with keys) only what the service signed about `expected`. */
  const followExpecting = (expected: Expected, options: { waitMs?: number | undefined }): ObservationFollow => {
    const { observationId } = expected;
    warmUpVerdictParsing();
    const progress = new EventQueue<ObservationEvent>();
    const { promise: verdict, resolve, reject } = Promise.withResolvers<ObservationVerdict>();
    // A caller who only reads progress must not crash the process with an unhandled rejection.
    verdict.catch(() => {});
    let settled = false;
    let stopReading: () => Promise<unknown> = async () => {};
    let timer: NodeJS.Timeout | undefined;
    /** The verdict as its notice brought it, before the stream's copy; `verdict` already resolved with it. */
    let noticed: Extract<ObservationEvent, { type: "verdict" }> | undefined;
    let noticeTimer: NodeJS.Timeout | undefined;

    const finish = (outcome: { verdict: ObservationVerdict } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(noticeTimer);
      stops.delete(stop);
      void stopReading().catch(() => {});
      if ("error" in outcome && noticed) {
        // The verdict is known and verified: the stream's copy no longer matters.
        progress.push(noticed);
        progress.end();
      } else if ("verdict" in outcome) {
        progress.end();
        resolve(outcome.verdict);
      } else {
        progress.fail(outcome.error);
        reject(outcome.error);
      }
    };
    const stop = (reason: Error) => finish({ error: reason });
    stops.add(stop);

    // The service's own bound: an id it refuses is no id it gave, and would make a consumer's subject.
    const valid = ObservationId.safeParse(observationId);
    if (!valid.success) {
      const issues = valid.error.issues.map(({ message }) => ({ path: "observationId", message }));
      finish({ error: new ObservationRejectedError("invalid_request", "invalid observation id", issues) });
      return { progress, verdict };
    }

    /**
     * What the record holds: after the budget (`final`), because the events were lost or the
     * service died; when following by subscription, once subscribed, for a verdict published
     * before. A decided verdict ends the follow; `final`, anything else does too.
     */
    const askDirectly = async (final: boolean) => {
      try {
        const current = await verdictOrUndefined(names.get, { observationId }, GetReply, expected);
        if (current !== undefined && current.outcome !== "in_progress") {
          const at = current.decidedAt ?? new Date().toISOString();
          const { tenant } = current;
          progress.push({ type: "verdict", observationId, deployment: current.deployment, ...(tenant !== undefined && { tenant }), at, verdict: current });
          finish({ verdict: current });
          return;
        }
        if (current === undefined) finish({ error: new ObserverUnavailableError(`stagewatch knows no observation ${observationId}`) });
        else if (final) finish({ error: new ObserverUnavailableError(`no verdict for observation ${observationId} after its budget ran out; is stagewatch running?`) });
      } catch (error) {
        finish({ error: error instanceof Error ? error : new ObserverUnavailableError(String(error)) });
      }
    };
    if (options.waitMs !== undefined) {
      timer = setTimeout(() => void askDirectly(true), options.waitMs);
    }

    let refusedBefore = false;
    const take = (raw: unknown, parsed: ObservationEvent, via: "stream" | "notice" = "stream") => {
      if (settled || (via === "notice" && (parsed.type !== "verdict" || noticed))) return;
      let event = parsed;
      if (keys.length > 0) {
        const trust = checkEvent(raw, keys, expected);
        if (!trust.trusted) {
          refuse(trust, "an event", observationId, refusedBefore);
          refusedBefore = true;
          return;
        }
        // As it arrived, for the reason `believed` gives.
        event = raw as ObservationEvent;
      }
      if (via === "notice" && event.type === "verdict") {
        // The verdict resolves now; progress keeps reading the stream, which is a few milliseconds
        // behind with the events before the verdict (the deciding step's, or all of them for a
        // client whose consumer is still starting), until its copy of the verdict or noticeGraceMs.
        noticed = event;
        resolve(event.verdict);
        noticeTimer = setTimeout(() => {
          progress.push(event);
          finish({ verdict: event.verdict });
        }, noticeGraceMs);
        return;
      }
      progress.push(event);
      if (event.type === "verdict") finish({ verdict: event.verdict });
    };
    // The service sends the verdict to waiting clients the moment it is stored, beside the stream's
    // copy (BusNames.verdictNotice): believed as that copy would be, so the stream is only the
    // way for a client that was not yet listening. Anything but a verdict there is ignored.
    const notices = names.eventFilters(observationId).map((filter) =>
      nc.subscribe(names.verdictNotice(filter), {
        callback: (error, message) => {
          if (error) return;
          const raw = parseJson(message.string());
          const parsed = parseWith(ObservationEvent, raw);
          if (parsed.ok) take(raw, parsed.value, "notice");
        },
      }),
    );
    const stopBoth = (stopper: () => Promise<unknown>) => async () => {
      for (const notice of notices) notice.unsubscribe();
      return stopper();
    };
    stopReading = stopBoth(async () => {});
    void readEvents(nc, js, names, observationId, {
      started: (stopper) => {
        stopReading = stopBoth(stopper);
        if (settled) void stopReading().catch(() => {});
      },
      subscribed: () => void askDirectly(false),
      event: take,
      failed: (cause) => finish({ error: new ObserverUnavailableError(`cannot read events of observation ${observationId}`, { cause }) }),
    });
    return { progress, verdict };
  };

  return {
    async observe(given) {
      const joined = given.traceparent === undefined ? settings.traceContext?.() : undefined;
      const input: ObservationRequestInput = joined ? { ...given, ...joined } : given;
      const parsed = parseWith(ObservationRequest, input);
      if (!parsed.ok) {
        throw new ObservationRejectedError("invalid_request", "invalid observation request", parsed.issues);
      }
      const body = JSON.stringify(input);
      const size = Buffer.byteLength(body);
      if (size > maxBodyBytes) {
        // Refused here rather than by the NATS server's max_payload, which would read as "unreachable".
        throw new ObservationRejectedError("too_large", "observation request is too large", [{ path: "(body)", message: `${size} bytes; at most ${maxBodyBytes}` }]);
      }
      const { reply } = await request(names.observe, body, ObserveReply);
      if (!reply.ok) throw errorFromReply(reply.error);
      const budgetEnds = budgetDeadline(parsed.value, Date.now());
      // The verdict must be about this request (its key), not only about the id the answer named:
      // whoever can answer on the observe subject could name another observation that succeeded.
      const expected = { observationId: reply.observationId, key: parsed.value.key };
      const followed = followExpecting(expected, { waitMs: Math.max(0, budgetEnds - Date.now()) + verdictGraceMs });
      return { observationId: reply.observationId, replay: reply.replay, ...followed };
    },
    follow: (observationId, options = {}) => followExpecting({ observationId }, options),
    cancel: (observationId, reason) => verdictOrUndefined(names.cancel, { observationId, reason }, CancelReply),
    get,
    async list(options = {}) {
      const { reply } = await request(names.list, JSON.stringify(options), ListReply);
      if (!reply.ok) throw errorFromReply(reply.error);
      return { items: reply.items, unreadable: reply.unreadable };
    },
    async close() {
      for (const stop of [...stops]) stop(new ObserverUnavailableError("observer closed"));
      await closeConnection();
    },
    verifies: keys.length > 0,
    verification,
    get rejected() {
      return rejected;
    },
  };
}

/**
 * One reader's callbacks: its consumer started, or (no stream in reach) its subscriptions are in
 * place, an event arrived (as received, and as parsed), the reading failed.
 */
type EventHandlers = {
  started(stop: () => Promise<unknown>): void;
  subscribed(): void;
  event(raw: unknown, event: ObservationEvent): void;
  failed(cause: unknown): void;
};

const consumerAttempts = 3;

/**
 * How long progress waits, once the verdict's notice came, for the stream's copy and the events
 * before it. The service sent them on its connection before the notice, so they are normally a
 * few milliseconds behind (the stream's store and the consumer's delivery); past this, progress
 * ends with the notice's verdict (a consumer that cannot start must not hold up a verdict known).
 */
const noticeGraceMs = 1_000;

/**
 * The ordered consumer of one observation's events. Creating it asks the JetStream API (stream
 * info), which answers in milliseconds but can take seconds on a loaded server or client; one
 * timeout must not end a follow whose verdict the service will still publish, so a timed-out
 * creation is tried again. Any other error (no such stream) is final at once.
 */
export async function eventConsumer(js: Pick<JetStreamClient, "consumers">, names: BusNames, observationId: string, retryMs = 1_000) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await js.consumers.get(names.eventStream, { filter_subjects: names.eventFilters(observationId), deliver_policy: DeliverPolicy.All });
    } catch (error) {
      if (!(error instanceof TimeoutError) || attempt >= consumerAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  }
}

/**
 * The account has no stream of that name, or no JetStream at all: a team's account in the
 * accounts layout. (nats.js exports JetStreamNotEnabled's class only from its internal module; its
 * name is the tag it sets.)
 */
function streamOutOfReach(error: unknown): boolean {
  return (error instanceof Error && error.name === "JetStreamNotEnabled") || (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound);
}

/** Subscribes to the observation's own subjects; `subscribed` once the server has the subscriptions. */
async function subscribeEvents(nc: NatsConnection, names: BusNames, observationId: string, handlers: EventHandlers): Promise<void> {
  const subscriptions = names.eventFilters(observationId).map((subject) =>
    nc.subscribe(subject, {
      callback: (error, message) => {
        if (!error) handle(message.string(), handlers);
      },
    }),
  );
  handlers.started(async () => subscriptions.forEach((subscription) => subscription.unsubscribe()));
  await nc.flush();
  handlers.subscribed();
}

/** Someone else's malformed message on our subject must not end a follow that is going well. */
function handle(text: string, handlers: EventHandlers): void {
  const raw = parseJson(text);
  const parsed = parseWith(ObservationEvent, raw);
  if (parsed.ok) handlers.event(raw, parsed.value);
}

async function readEvents(nc: NatsConnection, js: JetStreamClient, names: BusNames, observationId: string, handlers: EventHandlers): Promise<void> {
  try {
    let consumer: Awaited<ReturnType<typeof eventConsumer>>;
    try {
      consumer = await eventConsumer(js, names, observationId);
    } catch (error) {
      if (!streamOutOfReach(error)) throw error;
      await subscribeEvents(nc, names, observationId, handlers);
      return;
    }
    const messages = await consumer.consume();
    handlers.started(() => messages.close());
    for await (const message of messages) handle(message.string(), handlers);
    // Reached only if the consumer stopped on its own (the connection closed): after a verdict
    // or close() the handlers ignore this.
    handlers.failed(new Error("event consumer stopped"));
  } catch (cause) {
    handlers.failed(cause);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

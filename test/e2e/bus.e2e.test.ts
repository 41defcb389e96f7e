// The bus against a real nats-server with JetStream: request server, event stream, KV records and
// the client, end to end. The engine behind the request server is a small fake written here (the
// bus is real; deciding verdicts is not this module's concern). Each run uses its own subject
// prefix, so its stream and bucket never meet another run's.
import { silentLogger } from "../../src/logging/index.ts";
import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busNames,
  connectObserver,
  contentHash,
  createEventPublisher,
  createObserver,
  ensureEventStream,
  newObservationId,
  noopBusMetrics,
  ObservationConflictError,
  ObservationRejectedError,
  ObserverInternalError,
  ObserverUnavailableError,
  openObservationRecords,
  startRequestServer,
  type EventPublisher,
  type ObservationRecords,
  type ObservationService,
  type ObserveResult,
  type RequestServer,
} from "../../src/bus/index.js";
import {
  maxBodyBytes,
  ObservationRequest,
  type ErrorReply,
  type ObservationEvent,
  type ObservationRequestInput,
  type ObservationVerdict,
  type Outcome,
  type ReachedStage,
} from "../../src/verdicts/contract/schemas.js";
import { specExampleRequest } from "../fixtures/observation.ts";
import { busStreams } from "./support/bus.ts";
import { natsUrl } from "./support/cluster.js";

const prefix = `bus${randomBytes(4).toString("hex")}`;
const names = busNames(prefix);

/** The SPEC's example request under a key of its own: a bootstrap Job and a Deployment of `payments`. */
function paymentsRequest(overrides: Partial<ObservationRequestInput> = {}): ObservationRequestInput {
  return { ...specExampleRequest, key: `ci-${randomBytes(4).toString("hex")}/payments`, ...overrides };
}

function verdictOf(observationId: string, request: ObservationRequest, outcome: Outcome, reached: ReachedStage): ObservationVerdict {
  const startedAt = new Date().toISOString();
  const decided = outcome !== "in_progress";
  return {
    observationId,
    key: request.key,
    deployment: request.deployment,
    required: request.require,
    reached,
    outcome,
    resources: request.resources.map((identity) => ({
      identity: { ...identity, namespace: identity.namespace ?? request.defaultNamespace },
      state: outcome === "succeeded" ? "settled" : "pending",
    })),
    message: decided ? `deployment ${request.deployment} reached ${reached}` : `deployment ${request.deployment} is being observed`,
    startedAt,
    deadline: new Date(Date.now() + (request.timeoutSeconds ?? 300) * 1000).toISOString(),
    ...(decided ? { decidedAt: new Date().toISOString() } : {}),
  };
}

function eventsOf(verdict: ObservationVerdict): ObservationEvent[] {
  const base = { observationId: verdict.observationId, deployment: verdict.deployment };
  const [job, api] = verdict.resources;
  return [
    { ...base, type: "progress", at: "2026-11-29T10:00:01Z", resource: { ...job!, state: "settled" } },
    { ...base, type: "stage", at: "2026-11-29T10:00:02Z", stage: "bootstrapped" },
    { ...base, type: "progress", at: "2026-11-29T10:00:03Z", resource: { ...api!, state: "pending", reason: "Progressing", message: "1/2 replicas ready" } },
    { ...base, type: "verdict", at: "2026-11-29T10:00:09Z", verdict },
  ];
}

/** A gate a test opens by hand: holds an observe in flight for as long as the test needs. */
function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { wait: () => promise, open: () => resolve() };
}

/**
 * The fake engine: idempotency through the real KV records, behaviour chosen by deployment name.
 * `explodes` throws, `slow` waits on a gate, `instant` publishes its verdict before replying (the
 * late-subscriber race in its purest form), `silent` never publishes anything.
 */
class FakeEngine implements ObservationService {
  readonly slow = gate();
  constructor(
    private readonly records: ObservationRecords,
    private readonly publisher: EventPublisher,
  ) {}

  async observe(request: ObservationRequest): Promise<ObserveResult> {
    if (request.deployment === "explodes") throw new Error("kube token abc123 rejected");
    if (request.deployment === "slow") await this.slow.wait();
    const observationId = newObservationId();
    const hash = contentHash(request);
    const verdict = verdictOf(observationId, request, "in_progress", "none");
    await this.records.putRecord({
      observationId,
      contentHash: hash,
      request,
      identities: verdict.resources.map((r) => r.identity),
      startedAt: verdict.startedAt,
      deadline: verdict.deadline,
      outcome: "in_progress",
      verdict,
    });
    const claim = await this.records.claimKey(request.key, hash, observationId, undefined);
    if (!claim.claimed) {
      await this.records.deleteRecord(observationId);
      if (claim.contentHash === hash) return { ok: true, observationId: claim.observationId, replay: true };
      return { ok: false, code: "conflict", message: `key ${request.key} belongs to observation ${claim.observationId} with other content` };
    }
    if (request.deployment === "instant") await this.decide(observationId, "succeeded", "healthy");
    return { ok: true, observationId, replay: false };
  }

  /** Ends an observation: record first, then the events, as the real engine will. */
  async decide(observationId: string, outcome: Outcome, reached: ReachedStage, publish = true): Promise<ObservationVerdict> {
    const stored = await this.records.getRecord(observationId);
    if (!stored) throw new Error(`no record ${observationId}`);
    const verdict = verdictOf(observationId, stored.record.request, outcome, reached);
    const update = await this.records.updateRecord({ ...stored.record, outcome, verdict }, stored.revision);
    if (!update.updated) throw new Error(`record ${observationId} changed under us`);
    if (publish) for (const event of eventsOf(verdict)) void this.publisher.publish(event);
    await this.publisher.flush();
    return verdict;
  }

  async cancel(observationId: string, _reason: string | undefined) {
    const stored = await this.records.getRecord(observationId);
    if (!stored) return undefined;
    if (stored.record.outcome !== "in_progress") return stored.record.verdict;
    return this.decide(observationId, "cancelled", "none");
  }

  async get(observationId: string) {
    return (await this.records.getRecord(observationId))?.record.verdict;
  }
}

let nc: NatsConnection;
let jsm: JetStreamManager;
let records: ObservationRecords;
let engine: FakeEngine;
const servers: RequestServer[] = [];
const internalErrors: unknown[] = [];
const answered: string[] = [];

/** A raw request, as a client in another language would send it. */
async function rawRequest(subject: string, body: string | Uint8Array): Promise<unknown> {
  return (await nc.request(subject, body, { timeout: 10_000 })).json();
}

beforeAll(async () => {
  nc = await connect({ servers: natsUrl() });
  jsm = await jetstreamManager(nc);
  await ensureEventStream(jsm, names, { maxAgeMs: 3_600_000 });
  records = await openObservationRecords(jetstream(nc), { prefix, ttlMs: 3_600_000 });
  engine = new FakeEngine(records, createEventPublisher({ js: jetstream(nc), prefix }));
  const logger = { ...silentLogger, error: (fields: object) => void internalErrors.push(fields) };
  // Two replicas in the queue group, as a real installation runs them.
  const metrics = { ...noopBusMetrics, requestAnswered: (result: string) => void answered.push(result) };
  servers.push(startRequestServer({ connection: nc, service: engine, prefix, logger, metrics }));
  servers.push(startRequestServer({ connection: nc, service: engine, prefix, logger, metrics }));
  await nc.flush();
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  if (jsm) {
    for (const stream of busStreams(names)) await jsm.streams.delete(stream).catch(() => {});
  }
  await nc?.close();
});

describe("observe", () => {
  it("accepts a request and streams its events to the verdict", async () => {
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest());
    expect(run.replay).toBe(false);
    const verdict = await engine.decide(run.observationId, "succeeded", "healthy");

    const seen: ObservationEvent[] = [];
    for await (const event of run.progress) seen.push(event);
    expect(seen.map((e) => e.type)).toEqual(["progress", "stage", "progress", "verdict"]);
    expect(await run.verdict).toEqual(verdict);
    await observer.close();
  });

  it("replays the same key and content, and refuses the same key with other content", async () => {
    const observer = createObserver(nc, { prefix });
    const request = paymentsRequest();
    const countedBefore = answered.length;
    const first = await observer.observe(request);
    // Same content, other order of resources and of fields: still the same request.
    const reordered = { ...request, resources: [...request.resources].reverse() };
    const second = await observer.observe(reordered);
    expect(second).toMatchObject({ observationId: first.observationId, replay: true });

    const other = observer.observe({ ...request, require: "bootstrapped" });
    await expect(other).rejects.toBeInstanceOf(ObservationConflictError);
    await expect(other).rejects.toThrow(first.observationId);
    expect(answered.slice(countedBefore)).toEqual(["accepted", "replayed", "rejected"]);
    await observer.close();
  });

  it("creates one observation when replicas race on one key", async () => {
    const body = JSON.stringify(paymentsRequest());
    const replies = (await Promise.all(Array.from({ length: 8 }, () => rawRequest(names.observe, body)))) as {
      ok: true;
      observationId: string;
      replay: boolean;
    }[];
    expect(new Set(replies.map((r) => r.observationId)).size).toBe(1);
    expect(replies.filter((r) => !r.replay)).toHaveLength(1);
  });

  it("answers a slow request's neighbours while it is in flight", async () => {
    const observer = createObserver(nc, { prefix });
    let slowAnswered = false;
    const slow = observer.observe(paymentsRequest({ deployment: "slow" })).then((run) => {
      slowAnswered = true;
      return run;
    });
    const quick = await observer.observe(paymentsRequest());
    expect(await observer.get(quick.observationId)).toMatchObject({ outcome: "in_progress" });
    expect(slowAnswered).toBe(false);
    engine.slow.open();
    expect((await slow).replay).toBe(false);
    await observer.close();
  });
});

describe("bad requests", () => {
  const refused = async (body: string | Uint8Array) => {
    const reply = (await rawRequest(names.observe, body)) as ErrorReply;
    expect(reply.ok).toBe(false);
    return reply.error;
  };

  it("malformed JSON", async () => {
    const error = await refused('{"key": "ci-1/payments", "deployment": ');
    expect(error.code).toBe("invalid_request");
    expect(error.issues).toEqual([{ path: "(body)", message: expect.stringContaining("malformed JSON") }]);
  });

  it("a body that is not UTF-8", async () => {
    const error = await refused(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(error).toMatchObject({ code: "invalid_request", issues: [{ path: "(body)" }] });
  });

  it("wrong types name the field", async () => {
    const error = await refused(JSON.stringify({ ...paymentsRequest(), timeoutSeconds: "300", resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: 7 }] }));
    expect(error.code).toBe("invalid_request");
    expect(error.issues.map((i) => i.path).sort()).toEqual(["resources[0].name", "timeoutSeconds"]);
  });

  it("an unknown stage", async () => {
    const error = await refused(JSON.stringify({ ...paymentsRequest(), require: "ready" }));
    expect(error.issues).toEqual([{ path: "require", message: "must be one of applied, bootstrapped, healthy, verified" }]);
  });

  it("rendered, which is not observable", async () => {
    const error = await refused(JSON.stringify({ ...paymentsRequest(), require: "rendered" }));
    expect(error.issues).toEqual([{ path: "require", message: expect.stringContaining("'rendered' is not observable") }]);
  });

  it("too many resources", async () => {
    const resources = Array.from({ length: 1001 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", name: `config-${i}` }));
    const error = await refused(JSON.stringify({ ...paymentsRequest(), resources }));
    expect(error.issues).toEqual([{ path: "resources", message: "at most 1000 resources" }]);
  });

  it("a body over 1 MiB is too_large, answered by stagewatch and not the NATS server", async () => {
    // nats-server refuses anything above its max_payload (1 MiB by default) before it reaches a
    // subscriber; stagewatch's own limit only answers if the server allows more.
    expect(nc.info?.max_payload, "nats-server needs max_payload above 1 MiB (e.g. 8MB) for this test").toBeGreaterThan(maxBodyBytes);
    const padding = "x".repeat(maxBodyBytes);
    const error = await refused(JSON.stringify({ ...paymentsRequest(), key: padding }));
    expect(error).toMatchObject({ code: "too_large", issues: [{ path: "(body)" }] });
  });

  it("the client refuses a valid request over 1 MiB before sending it", async () => {
    // Valid field by field: 1,000 resources of a custom API group with a long (legal) name.
    const group = `${"a".repeat(60)}.`.repeat(18) + "example.com";
    const resources = Array.from({ length: 1000 }, (_, i) => ({ apiVersion: `${group}/v1`, kind: "Widget", name: `widget-${i}` }));
    const observer = createObserver(nc, { prefix });
    const error = await observer.observe(paymentsRequest({ resources })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObservationRejectedError);
    expect(error).toMatchObject({ code: "too_large", issues: [{ path: "(body)" }] });
    await observer.close();
  });

  it("cancel and get bodies are validated too", async () => {
    const cancel = (await rawRequest(names.cancel, JSON.stringify({ observationID: "x" }))) as ErrorReply;
    expect(cancel.error.issues).toEqual([
      { path: "observationId", message: "required" },
      { path: "observationID", message: "unknown field" },
    ]);
    const get = (await rawRequest(names.get, "[]")) as ErrorReply;
    expect(get.error).toMatchObject({ code: "invalid_request", issues: [{ path: "(body)" }] });
  });

  it("leaves the service answering", async () => {
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest());
    expect(run.replay).toBe(false);
    await observer.close();
  });

  it("the client refuses an invalid request before sending it, with the same issues", async () => {
    const observer = createObserver(nc, { prefix });
    const error = await observer.observe({ ...paymentsRequest(), require: "rendered" as "healthy" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObservationRejectedError);
    expect((error as ObservationRejectedError).issues).toEqual([{ path: "require", message: expect.stringContaining("rendered") }]);
    await observer.close();
  });
});

describe("service failures", () => {
  it("an exception becomes internal, with a safe message, and is logged", async () => {
    const reply = (await rawRequest(names.observe, JSON.stringify(paymentsRequest({ deployment: "explodes" })))) as ErrorReply;
    expect(reply.error.code).toBe("internal");
    expect(reply.error.message).not.toContain("abc123");
    expect(internalErrors).toContainEqual(expect.objectContaining({ subject: names.observe }));

    const observer = createObserver(nc, { prefix });
    await expect(observer.observe(paymentsRequest({ deployment: "explodes" }))).rejects.toBeInstanceOf(ObserverInternalError);
    await observer.close();
  });
});

describe("cancel and get", () => {
  it("not_found for an unknown observation", async () => {
    const observer = createObserver(nc, { prefix });
    expect(await observer.get(newObservationId())).toBeUndefined();
    expect(await observer.cancel(newObservationId(), "operator gave up")).toBeUndefined();
    const raw = (await rawRequest(names.get, JSON.stringify({ observationId: "no-such-id" }))) as ErrorReply;
    expect(raw.error).toEqual({ code: "not_found", message: "no observation no-such-id", issues: [{ path: "observationId", message: "no such observation" }] });
    // An id that is no subject token is none stagewatch gave: refused before any lookup.
    const malformed = (await rawRequest(names.get, JSON.stringify({ observationId: "no.such.id" }))) as ErrorReply;
    expect(malformed.error).toMatchObject({ code: "invalid_request", issues: [{ path: "observationId" }] });
    await observer.close();
  });

  it("cancel decides an observation once; its followers get the cancelled verdict", async () => {
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest());
    const cancelled = await observer.cancel(run.observationId, "pipeline aborted");
    expect(cancelled).toMatchObject({ outcome: "cancelled", observationId: run.observationId });
    expect(await run.verdict).toEqual(cancelled);
    expect(await observer.cancel(run.observationId, "again")).toEqual(cancelled);
    expect(await observer.get(run.observationId)).toEqual(cancelled);
    await observer.close();
  });
});

describe("events", () => {
  it("a client gets the verdict even when it was published before the client subscribed", async () => {
    // `instant` publishes the verdict before the observe reply leaves the service, so the client's
    // consumer is created after the verdict is already in the stream.
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest({ deployment: "instant" }));
    expect(await run.verdict).toMatchObject({ observationId: run.observationId, outcome: "succeeded", reached: "healthy" });
    await observer.close();
  });

  it("a second client following the observation after it ended reads every event", async () => {
    const first = createObserver(nc, { prefix });
    const run = await first.observe(paymentsRequest());
    await engine.decide(run.observationId, "failed", "bootstrapped");
    await run.verdict;
    await first.close();

    const late = await connectObserver({ servers: natsUrl(), prefix });
    const followed = late.follow(run.observationId);
    const seen: string[] = [];
    for await (const event of followed.progress) seen.push(event.type);
    expect(seen).toEqual(["progress", "stage", "progress", "verdict"]);
    expect(await followed.verdict).toMatchObject({ outcome: "failed", reached: "bootstrapped" });
    await late.close();
  });

  it("a verdict published twice (a retry, a second replica) is stored once", async () => {
    const js = jetstream(nc);
    const replicaA = createEventPublisher({ js, prefix });
    const replicaB = createEventPublisher({ js, prefix });
    const observationId = newObservationId();
    const request = ObservationRequest.parse(paymentsRequest());
    const [event] = eventsOf(verdictOf(observationId, request, "succeeded", "healthy")).filter((e) => e.type === "verdict");
    const a = await replicaA.publish(event!);
    const b = await replicaB.publish({ ...event!, at: "2026-11-29T10:00:10Z" });
    expect(a).toMatchObject({ published: true, duplicate: false });
    expect(b).toEqual({ published: true, seq: (a as { seq: number }).seq, duplicate: true });
  });

  it("when the events are lost, the client falls back to the record once the budget is over", async () => {
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest());
    const verdict = await engine.decide(run.observationId, "timed_out", "bootstrapped", false);
    const followed = observer.follow(run.observationId, { waitMs: 50 });
    expect(await followed.verdict).toEqual(verdict);
    await observer.close();
  });

  it("gives up with ObserverUnavailableError when the service never decides", async () => {
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest());
    const followed = observer.follow(run.observationId, { waitMs: 50 });
    await expect(followed.verdict).rejects.toBeInstanceOf(ObserverUnavailableError);
    await observer.close();
    await expect(run.verdict).rejects.toThrow("observer closed");
  });
});

describe("no observer", () => {
  it("no service on the subjects: ObserverUnavailableError", async () => {
    const observer = createObserver(nc, { prefix: `${prefix}-nobody` });
    const error = await observer.observe(paymentsRequest()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObserverUnavailableError);
    expect((error as Error).message).toContain("no stagewatch service is listening");
    await expect(observer.get(newObservationId())).rejects.toBeInstanceOf(ObserverUnavailableError);
    await observer.close();
  });

  it("no event stream to follow: ObserverUnavailableError", async () => {
    const observer = createObserver(nc, { prefix: `${prefix}-nobody` });
    const followed = observer.follow(newObservationId());
    await expect(followed.verdict).rejects.toBeInstanceOf(ObserverUnavailableError);
    await expect(followed.progress[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(ObserverUnavailableError);
    await observer.close();
  });

  it("NATS unreachable: ObserverUnavailableError", async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    const error = await connectObserver({ servers: "nats://127.0.0.1:1", connectTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ObserverUnavailableError);
  });
});

describe("records", () => {
  it("updateRecord refuses a stale revision and returns what is stored", async () => {
    const observer = createObserver(nc, { prefix });
    const run = await observer.observe(paymentsRequest());
    const stored = (await records.getRecord(run.observationId))!;
    const first = await records.updateRecord({ ...stored.record, outcome: "failed" }, stored.revision);
    expect(first.updated).toBe(true);
    const stale = await records.updateRecord({ ...stored.record, outcome: "succeeded" }, stored.revision);
    expect(stale).toMatchObject({ updated: false, current: { record: { outcome: "failed" } } });
    await observer.close();
  });

  it("the event stream can be ensured again with other limits", async () => {
    await ensureEventStream(jsm, names, { maxAgeMs: 2 * 3_600_000 });
    const info = await jsm.streams.info(names.eventStream);
    expect(info.config.max_age).toBe(2 * 3_600_000 * 1_000_000);
    expect(info.config.subjects).toEqual([names.allEvents]);
  });
});

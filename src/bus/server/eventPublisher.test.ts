import { JetStreamApiError, type JetStreamManager, type PubAck } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import type { ObservationEvent } from "../../verdicts/contract/schemas.js";
import { api, failedVerdict, observationId } from "../../../test/fixtures/verdicts.js";
import { checkEvent, newSigningSeed, serviceSigner, signBody, signingKeyFromSeed } from "../../signing/index.js";
import { newKey, oldKey } from "../../signing/testing/keys.js";
import { createEventPublisher, eventMessageId, retryDelayMs, type EventPublisherOptions } from "./eventPublisher.js";
import { noopBusMetrics } from "../telemetry.js";
import { silentLogger } from "../../logging/index.js";

const verdict = failedVerdict;
const base = { observationId, deployment: "payments" };
const progress = (at: string, reason: string): ObservationEvent => ({
  ...base,
  type: "progress",
  at,
  resource: { identity: api, state: "pending", reason },
});
const stage: ObservationEvent = { ...base, type: "stage", at: "2026-11-29T10:00:20Z", stage: "bootstrapped" };
const verdictEvent: ObservationEvent = { ...base, type: "verdict", at: "2026-11-29T10:00:41Z", verdict };

describe("eventMessageId", () => {
  it("is one id per verdict and per stage, whenever they are sent", () => {
    expect(eventMessageId(verdictEvent)).toBe(`${observationId}.verdict`);
    expect(eventMessageId({ ...verdictEvent, at: "2026-11-29T10:00:42Z" })).toBe(`${observationId}.verdict`);
    expect(eventMessageId(stage)).toBe(`${observationId}.stage.bootstrapped`);
  });

  it("tells progress events apart by content and time", () => {
    const first = progress("2026-11-29T10:00:10Z", "ContainerCreating");
    expect(eventMessageId(first)).toBe(eventMessageId({ ...first }));
    expect(eventMessageId(first)).not.toBe(eventMessageId(progress("2026-11-29T10:00:10Z", "ImagePullBackOff")));
    // The same reading again later is news (the resource went away from it and came back).
    expect(eventMessageId(first)).not.toBe(eventMessageId(progress("2026-11-29T10:00:30Z", "ContainerCreating")));
  });
});

it("retry delays double up to the cap", () => {
  const policy = { attempts: 8, initialDelayMs: 100, maxDelayMs: 1000 };
  expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(policy, n))).toEqual([100, 200, 400, 800, 1000, 1000]);
});

/** A JetStream publish that fails as scripted, recording what it stored and the waits asked for. */
function fakeStream(failures: (event: ObservationEvent, attempt: number) => boolean) {
  const stored: { subject: string; body: unknown; msgID: string | undefined }[] = [];
  const attempts = new Map<string, number>();
  const delays: number[] = [];
  let failed = 0;
  const options: EventPublisherOptions = {
    js: {
      async publish(subject, payload, opts) {
        const body = JSON.parse(String(payload)) as ObservationEvent;
        const key = `${subject}#${JSON.stringify(body)}`;
        const attempt = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, attempt);
        if (failures(body, attempt)) throw new Error("503 no responders");
        stored.push({ subject, body, msgID: opts?.msgID });
        return { stream: "STAGEWATCH_EVENTS", seq: stored.length, duplicate: false } satisfies PubAck;
      },
    },
    delay: async (ms) => {
      delays.push(ms);
    },
    metrics: { ...noopBusMetrics, publishFailed: () => void failed++ },
  };
  return { options, stored, delays, failures: () => failed };
}

describe("publish", () => {
  it("publishes on the observation's subject with its message id", async () => {
    const stream = fakeStream(() => false);
    const outcome = await createEventPublisher(stream.options).publish(verdictEvent);
    expect(outcome).toEqual({ published: true, seq: 1, duplicate: false });
    expect(stream.stored).toEqual([{ subject: `stagewatch.events.payments.${observationId}`, body: verdictEvent, msgID: `${observationId}.verdict` }]);
  });

  it("retries a failed attempt with backoff and counts each failure", async () => {
    const stream = fakeStream((_, attempt) => attempt <= 2);
    const outcome = await createEventPublisher(stream.options).publish(verdictEvent);
    expect(outcome).toMatchObject({ published: true });
    expect(stream.delays).toEqual([100, 200]);
    expect(stream.failures()).toBe(2);
  });

  it("gives up after the last attempt without throwing", async () => {
    const stream = fakeStream(() => true);
    const outcome = await createEventPublisher({ ...stream.options, retry: { attempts: 3, initialDelayMs: 50, maxDelayMs: 80 } }).publish(verdictEvent);
    expect(outcome).toMatchObject({ published: false, error: expect.any(Error) });
    expect(stream.delays).toEqual([50, 80]);
    expect(stream.failures()).toBe(3);
    expect(stream.stored).toEqual([]);
  });

  it("pipelines an observation's events, and sends its verdict only once every earlier event is stored", async () => {
    const first = progress("2026-11-29T10:00:10Z", "ContainerCreating");
    const stream = fakeStream(() => false);
    const acks: (() => void)[] = [];
    const sent: string[] = [];
    const publisher = createEventPublisher({
      ...stream.options,
      js: {
        publish: (subject, payload, opts) => {
          sent.push((JSON.parse(String(payload)) as ObservationEvent).type);
          return new Promise<void>((resolve) => acks.push(resolve)).then(() => stream.options.js.publish(subject, payload, opts));
        },
      },
    });
    const outcomes = [publisher.publish(first), publisher.publish(stage), publisher.publish(verdictEvent)];
    // Both sent before either is acknowledged; the verdict not yet.
    expect(sent).toEqual(["progress", "stage"]);
    acks.splice(0).forEach((ack) => ack());
    for (let round = 0; round < 10 && acks.length === 0; round++) await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["progress", "stage", "verdict"]);
    acks.splice(0).forEach((ack) => ack());
    expect((await Promise.all(outcomes)).every((o) => o.published)).toBe(true);
  });

  it("never stores anything of an observation after its verdict, even when an earlier event needed a retry", async () => {
    const first = progress("2026-11-29T10:00:10Z", "ContainerCreating");
    // Only the first event fails once: the stage overtakes it, the verdict never does.
    const stream = fakeStream((event, attempt) => event.type === "progress" && attempt === 1);
    const publisher = createEventPublisher(stream.options);
    const outcomes = await Promise.all([publisher.publish(first), publisher.publish(stage), publisher.publish(verdictEvent)]);
    expect(outcomes.every((o) => o.published)).toBe(true);
    expect(stream.stored.map((s) => (s.body as ObservationEvent).type)).toEqual(["stage", "progress", "verdict"]);
  });

  it("sends a verdict's notice at once, signed as its stream copy, on the notice subject", async () => {
    const stream = fakeStream(() => false);
    const signer = serviceSigner(newKey);
    const notices: { subject: string; body: unknown }[] = [];
    const held = Promise.withResolvers<void>();
    const publisher = createEventPublisher({
      ...stream.options,
      signer,
      js: { publish: (subject, payload, opts) => held.promise.then(() => stream.options.js.publish(subject, payload, opts)) },
      notify: (subject, body) => void notices.push({ subject, body: JSON.parse(body) }),
    });
    const progressed = publisher.publish(progress("2026-11-29T10:00:10Z", "ContainerCreating"));
    // The engine signs a verdict when it is decided; the publisher signs the event around it.
    const decided = publisher.publish({ ...verdictEvent, verdict: signer.sign(verdict) });
    // Before the stream acknowledged the progress event before it, or stored the verdict.
    expect(notices.map((n) => n.subject)).toEqual([`stagewatch.verdicts.payments.${observationId}`]);
    expect(checkEvent(notices[0]!.body, [newKey.verifyKey], { observationId }).trusted).toBe(true);
    held.resolve();
    await Promise.all([progressed, decided]);
    expect(stream.stored.at(-1)!.body).toEqual(notices[0]!.body);
  });

  it("does not hold other observations behind a stuck one", async () => {
    const other = "0b6f2d44-9a51-4c0e-8f1b-7d3e5a2c9b10";
    const stream = fakeStream(() => false);
    const stuck = Promise.withResolvers<void>();
    const publisher = createEventPublisher({
      ...stream.options,
      js: {
        publish: (subject, payload, opts) =>
          subject.endsWith(observationId) ? stuck.promise.then(() => stream.options.js.publish(subject, payload, opts)) : stream.options.js.publish(subject, payload, opts),
      },
    });
    const held = publisher.publish(verdictEvent);
    expect(await publisher.publish({ ...stage, observationId: other })).toMatchObject({ published: true });
    expect(stream.stored.map((s) => s.subject)).toEqual([`stagewatch.events.payments.${other}`]);
    stuck.resolve();
    await held;
    await publisher.flush();
    expect(stream.stored).toHaveLength(2);
  });

  it("refuses an event whose id cannot be a subject token, without throwing", async () => {
    const stream = fakeStream(() => false);
    const outcome = await createEventPublisher(stream.options).publish({ ...verdictEvent, observationId: "a.b" });
    expect(outcome).toMatchObject({ published: false });
    expect(stream.stored).toEqual([]);
  });

  it("while NATS is away, keeps every event until it returns, in order, and past its bound drops progress only", async () => {
    let away = true;
    const stream = fakeStream(() => away);
    const waits: (() => void)[] = [];
    const publisher = createEventPublisher({
      ...stream.options,
      buffer: { maxEvents: 2 },
      // Each retry waits until the test lets time pass.
      delay: () => new Promise<void>((resolve) => waits.push(resolve)),
    });
    const outcomes = [
      publisher.publish(progress("2026-11-29T10:00:10Z", "ContainerCreating")),
      publisher.publish(stage),
      publisher.publish(progress("2026-11-29T10:00:20Z", "ImagePullBackOff")),
      publisher.publish(verdictEvent),
    ];
    expect(publisher.buffered).toBe(3);
    for (let round = 0; round < 20; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      waits.splice(0).forEach((wake) => wake());
    }
    away = false;
    for (let round = 0; round < 20 && publisher.buffered > 0; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      waits.splice(0).forEach((wake) => wake());
    }
    const settled = await Promise.all(outcomes);
    expect(settled.map((o) => o.published)).toEqual([true, true, false, true]);
    expect(stream.stored.map((s) => (s.body as ObservationEvent).type)).toEqual(["progress", "stage", "verdict"]);
    expect(publisher.buffered).toBe(0);
  });

  it("while NATS is away, one tenant's flood fills its own share of the bytes: another tenant's progress still waits, and no verdict or stage is dropped", async () => {
    let away = true;
    const stream = fakeStream(() => away);
    const waits: (() => void)[] = [];
    const dropped: (string | undefined)[] = [];
    const warnings: { fields: object; message: string }[] = [];
    const publisher = createEventPublisher({
      ...stream.options,
      // Two tenants, 64 KiB each: the service's eventBufferLimitsFor(2) of a 128 KiB buffer.
      buffer: { maxBytes: 128 * 1024, maxBytesPerTenant: 64 * 1024 },
      delay: () => new Promise<void>((resolve) => waits.push(resolve)),
      metrics: { ...noopBusMetrics, eventDropped: (tenant) => void dropped.push(tenant) },
      logger: { ...silentLogger, warn: (fields, message) => void warnings.push({ fields, message }) },
    });
    const floodId = "0b6f2d44-9a51-4c0e-8f1b-7d3e5a2c9b10";
    const teamB = { observationId: floodId, deployment: "widgets", tenant: "TEAM_B" };
    const teamA = { ...base, tenant: "TEAM_A" };
    // What issue 32's custom resource wrote: a long message on every status write (cut to 1 KiB by the engine).
    const flood = Array.from({ length: 200 }, (_, i): ObservationEvent => ({
      ...teamB,
      type: "progress",
      at: `2026-11-29T10:01:${String(i % 60).padStart(2, "0")}Z`,
      resource: { identity: { apiVersion: "example.com/v1", kind: "Widget", namespace: "team-b", name: "w" }, state: "pending", reason: `Step${i}`, message: "x".repeat(1024) },
    }));
    const floodOutcomes = flood.map((event) => publisher.publish(event));
    const teamBStage = publisher.publish({ ...teamB, type: "stage", at: "2026-11-29T10:02:00Z", stage: "applied" });
    const teamAProgress = publisher.publish({ ...progress("2026-11-29T10:02:01Z", "ContainerCreating"), ...teamA });
    const teamBVerdict = publisher.publish({ ...teamB, type: "verdict", at: "2026-11-29T10:02:02Z", verdict: { ...verdict, observationId: floodId, deployment: "widgets", tenant: "TEAM_B" } });

    // TEAM_B's share holds about fifty of its 1.3 KB events; the rest are dropped, one log line for all of them.
    const droppedOfB = dropped.filter((tenant) => tenant === "TEAM_B").length;
    expect(droppedOfB).toBeGreaterThan(100);
    expect(dropped.every((tenant) => tenant === "TEAM_B")).toBe(true);
    const bufferFull = () => warnings.filter((warning) => warning.message.startsWith("event buffer full"));
    expect(bufferFull().map((warning) => warning.fields)).toEqual([expect.objectContaining({ observationId: floodId, tenant: "TEAM_B", bound: "tenantBytes" })]);

    away = false;
    for (let round = 0; round < 20 && publisher.buffered > 0; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      waits.splice(0).forEach((wake) => wake());
    }
    expect(await teamAProgress).toMatchObject({ published: true });
    expect(await teamBStage).toMatchObject({ published: true });
    expect(await teamBVerdict).toMatchObject({ published: true });
    expect((await Promise.all(floodOutcomes)).filter((o) => !o.published)).toHaveLength(droppedOfB);
    expect(stream.stored.filter((s) => (s.body as ObservationEvent).tenant === "TEAM_B").at(-1)!.body).toMatchObject({ type: "verdict" });
    expect(publisher.buffered).toBe(0);
    expect(bufferFull()).toHaveLength(1);
  });

  it("drops progress past the bytes of every tenant together, however few events wait", async () => {
    const publisher = createEventPublisher({ ...fakeStream(() => true).options, buffer: { maxBytes: 4 * 1024 }, delay: () => new Promise<void>(() => {}) });
    const big = (i: number): ObservationEvent => ({ ...base, type: "progress", at: `2026-11-29T10:00:${10 + i}Z`, resource: { identity: api, state: "pending", message: "m".repeat(1500) } });
    const outcomes = [0, 1, 2, 3].map((i) => publisher.publish(big(i)));
    expect(publisher.buffered).toBe(2);
    expect(await outcomes[2]).toMatchObject({ published: false, error: expect.objectContaining({ message: "event buffer full (bytes)" }) });
    void publisher.publish(verdictEvent);
    expect(publisher.buffered).toBe(3);
  });

  it("drops what waits for an observation that went to another replica, but never its verdict", async () => {
    let away = true;
    const stream = fakeStream(() => away);
    const waits: (() => void)[] = [];
    const publisher = createEventPublisher({ ...stream.options, delay: () => new Promise<void>((resolve) => waits.push(resolve)) });
    const dropped = publisher.publish(progress("2026-11-29T10:00:10Z", "ContainerCreating"));
    await new Promise((resolve) => setImmediate(resolve));
    publisher.discard(observationId);
    away = false;
    waits.splice(0).forEach((wake) => wake());
    expect(await dropped).toMatchObject({ published: false });
    expect(stream.stored).toEqual([]);
  });
});

describe("with a signing key", () => {
  const signer = serviceSigner(newKey, [oldKey.verifyKey]);
  const keys = [newKey.verifyKey];
  /** The verdict event as the engine hands it over: its verdict signed when it was stored. */
  const decided: ObservationEvent = { ...verdictEvent, verdict: signer.sign(verdict) };

  it("publishes every event signed, under a message id carrying its signature", async () => {
    const stream = fakeStream(() => false);
    const publisher = createEventPublisher({ ...stream.options, signer });
    await Promise.all([publisher.publish(progress("2026-11-29T10:00:10Z", "ContainerCreating")), publisher.publish(stage), publisher.publish(decided)]);
    for (const { body } of stream.stored) expect(checkEvent(body, keys, { observationId }).trusted).toBe(true);
    const [, stageId, verdictId] = stream.stored.map((s) => s.msgID);
    const verdictSig = (stream.stored[2]!.body as ObservationEvent).signature!.sig;
    expect(verdictId).toBe(`${observationId}.verdict.${verdictSig.slice(0, 32)}`);
    expect(stageId).toMatch(new RegExp(`^${observationId}\\.stage\\.bootstrapped\\.[A-Za-z0-9_-]{32}$`));
  });

  it("a re-sent event has the same id (still de-duplicated), one no forger can write down before it is sent", () => {
    const once = signer.sign(decided);
    expect(eventMessageId(signer.sign(decided))).toBe(eventMessageId(once));
    expect(eventMessageId(once)).not.toBe(`${observationId}.verdict`);
    expect(eventMessageId(signer.sign({ ...decided, at: "2026-11-29T10:00:42Z" }))).not.toBe(eventMessageId(once));
  });

  /** A stream whose last message on the observation's subject is `last`. */
  const streamEnding = (last: unknown): EventPublisherOptions["jsm"] => ({
    streams: {
      getMessage: async () => ({ json: () => last, string: () => JSON.stringify(last) }),
    } as unknown as JetStreamManager["streams"],
  });
  const forged = { ...verdictEvent, verdict: { ...verdict, outcome: "succeeded" as const } };
  const stranger = signingKeyFromSeed(newSigningSeed().seed);

  it.each([
    ["the service's own verdict", signer.sign(decided), true],
    ["a verdict signed by the previous key it still trusts", signBody({ ...verdictEvent, verdict: signBody(verdict, oldKey) }, oldKey), true],
    ["a forged, unsigned verdict", forged, false],
    ["a verdict event signed by another server key", signBody({ ...forged, verdict: signBody(forged.verdict, stranger) }, stranger), false],
    ["the service's genuine verdict of another observation", signer.sign({ ...decided, observationId: "0b6f2d44-9a51-4c0e-8f1b-7d3e5a2c9b10", verdict: signer.sign({ ...verdict, observationId: "0b6f2d44-9a51-4c0e-8f1b-7d3e5a2c9b10" }) }), false],
    ["a progress event", signer.sign(progress("2026-11-29T10:00:10Z", "ContainerCreating")), false],
    ["a message that is not an event", "hello", false],
  ])("hasVerdict with %s last on the subject: %s", async (_, last, expected) => {
    let untrusted = 0;
    const metrics = { ...noopBusMetrics, untrustedVerdictFound: () => void untrusted++ };
    const publisher = createEventPublisher({ ...fakeStream(() => false).options, jsm: streamEnding(last), signer, metrics });
    expect(await publisher.hasVerdict("payments", observationId, undefined)).toBe(expected);
    // Counted: a verdict found on the subject that the service did not sign.
    expect(untrusted).toBe(typeof last === "object" && last.type === "verdict" && !expected ? 1 : 0);
  });

  it("hasVerdict of a tenant's observation reads the tenant's stream, and the one stream when the tenant has none", async () => {
    const asked: string[] = [];
    const streams = (tenantStreamExists: boolean): EventPublisherOptions["jsm"] => ({
      streams: {
        getMessage: async (stream: string, query: { last_by_subj: string }) => {
          asked.push(`${stream} ${query.last_by_subj}`);
          if (stream === "STAGEWATCH_EVENTS-TEAM_A" && !tenantStreamExists) throw new JetStreamApiError({ err_code: 10059, code: 404, description: "stream not found" });
          const last = signer.sign(decided);
          return { json: () => last, string: () => JSON.stringify(last) };
        },
      } as unknown as JetStreamManager["streams"],
    });
    const subject = `stagewatch.events.TEAM_A.payments.${observationId}`;
    expect(await createEventPublisher({ ...fakeStream(() => false).options, jsm: streams(true), signer }).hasVerdict("payments", observationId, "TEAM_A")).toBe(true);
    expect(asked.splice(0)).toEqual([`STAGEWATCH_EVENTS-TEAM_A ${subject}`]);
    expect(await createEventPublisher({ ...fakeStream(() => false).options, jsm: streams(false), signer }).hasVerdict("payments", observationId, "TEAM_A")).toBe(true);
    expect(asked.splice(0)).toEqual([`STAGEWATCH_EVENTS-TEAM_A ${subject}`, `STAGEWATCH_EVENTS ${subject}`]);
  });

  it("without a signing key, hasVerdict checks only that a verdict is there (as before signatures)", async () => {
    const publisher = createEventPublisher({ ...fakeStream(() => false).options, jsm: streamEnding(forged) });
    expect(await publisher.hasVerdict("payments", observationId, undefined)).toBe(true);
  });
});

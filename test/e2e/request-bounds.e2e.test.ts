// The request fields that reach a NATS subject or a KV key (observationId, key, deployment), with
// random lengths and characters, sent through the real request server to the real engine (its
// records, leases and events in the e2e nats-server's JetStream, its kinds from the e2e cluster).
// nats-server closes a connection whose control line passes its max_control_line: one `get` with a
// 5,000-character id did that to the service, which was off the bus until it reconnected. Whatever
// a field holds, the service's connection never drops, a refusal is `invalid_request` naming the
// field, and the next ordinary request is answered on its first try.
import { randomBytes } from "node:crypto";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection, type Status } from "@nats-io/transport-node";
import fc from "fast-check";
import { asyncScheduler } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busNames,
  createEventPublisher,
  ensureEventStream,
  openLeaseStore,
  openObservationRecords,
  startRequestServer,
  type RequestServer,
} from "../../src/bus/index.js";
import { silentLogger } from "../../src/logging/index.js";
import { defaultLeaseTiming, LeaseKeeper, noopLeaseMetrics, ObservationEngine } from "../../src/observations/index.js";
import { InformerHub, kubeHttpTransport } from "../../src/streams/index.js";
import { defaultCallerQuotas } from "../../src/tenants/index.js";
import type { ErrorReply, ObservationRequestInput } from "../../src/verdicts/contract/schemas.js";
import { requestFieldValue } from "../fixtures/requestFields.js";
import { removeBus } from "./support/bus.js";
import { kubeConfig, natsUrl } from "./support/cluster.js";

const prefix = `bounds${randomBytes(4).toString("hex")}`;
const names = busNames(prefix);

type Field = "observationId" | "key" | "deployment";

/** The bounds as docs/operator/limits.md states them, written out again so the test checks the schemas against them. */
const withinBounds: Record<Field, (value: string) => boolean> = {
  observationId: (value) => /^[A-Za-z0-9_-]{1,64}$/.test(value),
  deployment: (value) => /^[a-z0-9-]{1,63}$/.test(value),
  key: (value) => value.length >= 1 && value.length <= 256 && !/[\u0000-\u001f\u007f-\u009f]/.test(value),
};

function ordinaryRequest(overrides: Partial<ObservationRequestInput> = {}): ObservationRequestInput {
  return {
    key: `bounds-${randomBytes(6).toString("hex")}`,
    deployment: "bounds",
    require: "applied",
    timeoutSeconds: 120,
    resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "stagewatch-bounds", name: "bounds" }],
    ...overrides,
  };
}

/** The service's side: its own connection, watched for every status that means it left the bus. */
let serviceConnection: NatsConnection;
const drops: Status[] = [];
let client: NatsConnection;
let hub: InformerHub;
let leases: LeaseKeeper;
let engine: ObservationEngine;
let requests: RequestServer;
let ordinaryId: string;

async function ask(subject: string, body: unknown): Promise<{ ok: true; [field: string]: unknown } | ErrorReply> {
  return (await client.request(subject, JSON.stringify(body), { timeout: 10_000 })).json();
}

beforeAll(async () => {
  serviceConnection = await connect({ servers: natsUrl(), name: `stagewatch-${prefix}` });
  void (async () => {
    for await (const status of serviceConnection.status()) {
      if (["disconnect", "reconnecting", "reconnect", "staleConnection", "error", "close"].includes(status.type)) drops.push(status);
    }
  })();
  const jsm = await jetstreamManager(serviceConnection);
  await ensureEventStream(jsm, names, { maxAgeMs: 3_600_000 });
  const js = jetstream(serviceConnection);
  const records = await openObservationRecords(js, { prefix, ttlMs: 3_600_000 });
  const leaseStore = await openLeaseStore(js, { prefix, ttlMs: 3_600_000 });
  hub = new InformerHub({ transport: kubeHttpTransport(kubeConfig()) });
  leases = new LeaseKeeper({
    store: leaseStore,
    replicaId: `e2e-${prefix}`,
    timing: defaultLeaseTiming,
    scheduler: asyncScheduler,
    metrics: noopLeaseMetrics,
    logger: silentLogger,
  });
  // Field bounds, not rates: the property sends requests as fast as they are answered.
  engine = new ObservationEngine({ kinds: hub, events: createEventPublisher({ js, jsm, prefix }), records, leases });
  leases.startHeartbeat();
  const unbounded = 100_000;
  const quotas = { ...defaultCallerQuotas, requestsPerSecond: unbounded, getsPerSecond: unbounded, cancelsPerSecond: unbounded, listsPerSecond: unbounded };
  requests = startRequestServer({ connection: serviceConnection, service: engine, prefix, quotas });
  client = await connect({ servers: natsUrl() });
  const accepted = await ask(names.observe, ordinaryRequest());
  if (!accepted.ok) throw new Error(`the ordinary request was refused: ${JSON.stringify(accepted)}`);
  ordinaryId = accepted.observationId as string;
});

afterAll(async () => {
  await requests?.stop();
  engine?.stop();
  leases?.stopHeartbeat();
  hub?.stop();
  await client?.close();
  await serviceConnection?.close();
  await removeBus(natsUrl(), prefix);
});

/** One request carrying `value` in `field`, on the subject that takes it. */
function attack(field: Field, value: string, via: "get" | "cancel"): [string, unknown] {
  switch (field) {
    case "observationId":
      return via === "get" ? [names.get, { observationId: value }] : [names.cancel, { observationId: value, reason: "bounds test" }];
    case "key":
      return [names.observe, ordinaryRequest({ key: value })];
    case "deployment":
      return [names.observe, ordinaryRequest({ deployment: value })];
  }
}

describe("fields that reach a subject or a KV key", () => {
  it("any length and any characters: refused naming the field or answered, the service never off the bus", async () => {
    const tried = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Field>("observationId", "key", "deployment"),
        requestFieldValue,
        fc.constantFrom("get" as const, "cancel" as const),
        async (field, value, via) => {
          const [subject, body] = attack(field, value, via);
          const reply = await ask(subject, body);
          tried.add(`${field} ${withinBounds[field](value) ? "within" : "past"} its bounds`);
          if (withinBounds[field](value)) {
            // A well-formed id nobody was given is simply not found; a valid key or deployment is accepted.
            if (field === "observationId") expect(reply).toMatchObject({ ok: false, error: { code: "not_found" } });
            else expect(reply).toMatchObject({ ok: true });
          } else {
            expect(reply.ok).toBe(false);
            const { error } = reply as ErrorReply;
            expect(error.code).toBe("invalid_request");
            expect(error.issues.length).toBeGreaterThan(0);
            expect(error.issues.map((issue) => issue.path)).toEqual(error.issues.map(() => field));
          }
          // The next ordinary request, on its first try: a service reconnecting has no subscription
          // to answer it (no responders), so a drop shows here as well as in the statuses.
          const next = await ask(names.get, { observationId: ordinaryId });
          expect(next).toMatchObject({ ok: true, verdict: { observationId: ordinaryId } });
          expect(drops).toEqual([]);
        },
      ),
      {
        numRuns: 150,
        examples: [
          ["observationId", "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b", "cancel"],
          ["key", "ci-4812/payments (retry 2)", "get"],
          ["deployment", "payments-v2", "get"],
          ["observationId", "a".repeat(5_000), "get"],
          ["observationId", "a".repeat(5_000), "cancel"],
          ["observationId", "a".repeat(65), "get"],
          ["key", "k".repeat(5_000), "get"],
          ["deployment", "d".repeat(5_000), "get"],
        ],
      },
    );
    expect(serviceConnection.isClosed()).toBe(false);
    expect([...tried].sort()).toEqual(
      ["deployment", "key", "observationId"].flatMap((field) => [`${field} past its bounds`, `${field} within its bounds`]),
    );
  });
});

// The request server between tenants, on a fake connection that delivers requests as nats-server
// does through the service imports (tenant subject, Nats-Request-Info header, `_R_.` reply): one
// tenant's flood neither delays another's requests behind it nor spends the other's quotas, is
// refused on arrival naming its numbers, and is logged by sample.
import type { Msg, NatsConnection, Subscription } from "@nats-io/transport-node";
import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../logging/index.js";
import { defaultCallerQuotas, parseTenantsFile, type Caller } from "../../tenants/index.js";
import type { ObservationVerdict } from "../../verdicts/contract/schemas.js";
import type { ListScope } from "../stores/inProgress.js";
import { startRequestServer, type ObservationService } from "./requestServer.js";
import type { RequestKind } from "../subjects.js";

type Reply = { ok: boolean; error?: { code: string; message: string } };

const tenants = parseTenantsFile(
  `tenants:
  TEAM_A: {namespaces: [team-a], quotas: {requestsPerSecond: 2}}
  TEAM_B: {namespaces: [team-b], quotas: {pending: 1000, getsPerSecond: 100000}}
`,
  "tenants.yaml",
);

/** Subscriptions by subject; `send` delivers one request as the server would, resolving with the reply. */
function fakeConnection() {
  const callbacks = new Map<string, (error: Error | null, msg: Msg) => void>();
  const connection = {
    subscribe(subject: string, options: { callback: (error: Error | null, msg: Msg) => void }): Subscription {
      callbacks.set(subject, options.callback);
      return { isClosed: () => false, drain: async () => {} } as unknown as Subscription;
    },
  } as unknown as NatsConnection;
  let replies = 0;
  const send = (kind: RequestKind, tenant: string, body: object): Promise<Reply> =>
    new Promise((resolve) => {
      const msg = {
        subject: `stagewatch.${kind}.${tenant}`,
        data: new TextEncoder().encode(JSON.stringify(body)),
        reply: `_R_.abc.${++replies}`,
        headers: { get: (name: string) => (name === "Nats-Request-Info" ? JSON.stringify({ acc: tenant, rtt: 1 }) : "") },
        respond: (data: string) => (resolve(JSON.parse(data) as Reply), true),
      } as unknown as Msg;
      callbacks.get(`stagewatch.${kind}.*`)!(null, msg);
    });
  return { connection, send };
}

/** Answers after a turn of the event loop, as a KV read would; notes who was served, in order. */
function slowService(served: string[]): ObservationService {
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
  return {
    observe: (_request, caller: Caller) => (served.push(`observe ${caller.id}`), later({ ok: true as const, observationId: `obs-${served.length}`, replay: false })),
    get: (_id, caller: Caller) => (served.push(`get ${caller.id}`), later<ObservationVerdict | undefined>(undefined)),
    cancel: (_id, _reason, caller: Caller) => (served.push(`cancel ${caller.id}`), later<ObservationVerdict | undefined>(undefined)),
  };
}

function recordingLogger() {
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  const record = (fields: object, message: string) => void lines.push({ message, fields: fields as Record<string, unknown> });
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  return { lines, logger };
}

const observeBody = { key: "ci-1/api", deployment: "api", require: "healthy", timeoutSeconds: 300, resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "team-a", name: "api" }] };
const getBody = { observationId: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0" };

describe("the request server between tenants", () => {
  it("TEAM_B with 900 requests outstanding: TEAM_A's are served in turn, and its allowed 2 a second, sent meanwhile, are never refused", async () => {
    const { connection, send } = fakeConnection();
    const served: string[] = [];
    const scheduler = new VirtualTimeScheduler();
    const server = startRequestServer({ connection, service: slowService(served), tenants, scheduler, queue: { sliceSize: 16, concurrency: 4 } });

    let answeredB = 0;
    const flood = Array.from({ length: 900 }, () => send("get", "TEAM_B", getBody).then((reply) => (answeredB += 1, reply)));
    // TEAM_A sends 2 a second for 3 seconds, every one arriving while TEAM_B's 900 wait.
    const teamA: Promise<{ reply: Reply; answeredBBefore: number }>[] = [];
    for (let i = 0; i < 6; i++) {
      scheduler.frame = i * 500;
      teamA.push(send(i % 2 === 0 ? "observe" : "get", "TEAM_A", i % 2 === 0 ? observeBody : getBody).then((reply) => ({ reply, answeredBBefore: answeredB })));
    }
    const answersA = await Promise.all(teamA);
    expect(answersA.map(({ reply }) => reply.ok || reply.error!.code)).toEqual([true, "not_found", true, "not_found", true, "not_found"]);
    // In one FIFO all 900 of TEAM_B's came first; in turns, TEAM_A's 6 went out among the first few dozen.
    expect(Math.max(...answersA.map(({ answeredBBefore }) => answeredBBefore))).toBeLessThan(6 * 4 + 16);
    expect((await Promise.all(flood)).every((reply) => reply.error?.code === "not_found")).toBe(true);
    await server.stop();
  });

  it("refuses TEAM_B past its pending requests on arrival, naming its numbers and the replica's queue, logging the refusals by sample", async () => {
    const { connection, send } = fakeConnection();
    const served: string[] = [];
    const { lines, logger } = recordingLogger();
    const server = startRequestServer({ connection, service: slowService(served), tenants, logger, scheduler: new VirtualTimeScheduler() });
    const replies = await Promise.all(Array.from({ length: 1_200 }, () => send("get", "TEAM_B", getBody)));
    const refused = replies.filter((reply) => reply.error?.code === "quota");
    expect(refused).toHaveLength(200);
    expect(refused[0]!.error!.message).toBe(
      "tenant TEAM_B has 1000 of 1000 requests pending on this replica (limit pendingPerCaller 1000; the replica's queue 1000 of 10000, every caller together); retry when some are answered",
    );
    // Refused ones were never read, nor handed to the service.
    expect(served).toHaveLength(1_000);
    // 1,200 refusals (200 quota, 1,000 not_found), 2 lines, then 2 counts.
    expect(lines.filter((line) => line.message.startsWith("request refused")).map((line) => [line.fields.code, line.fields.limit])).toEqual([
      ["quota", "pendingPerCaller"],
      ["not_found", undefined],
    ]);
    await server.stop();
    expect(lines.filter((line) => line.message === "requests refused like the one logged").map((line) => line.fields)).toEqual([
      { caller: "TEAM_B", kind: "get", code: "quota", limit: "pendingPerCaller", refused: 199, seconds: 10 },
      { caller: "TEAM_B", kind: "get", code: "not_found", refused: 999, seconds: 10 },
    ]);
  });

  it("bounds each kind on arrival with the tenant's quotas or the service's defaults", async () => {
    const { connection, send } = fakeConnection();
    const quotas = { ...defaultCallerQuotas, cancelsPerSecond: 1, listsPerSecond: 1, getsPerSecond: 2 };
    const scopes: ListScope[] = [];
    const inProgress = async (scope: ListScope) => (scopes.push(scope), { observations: [], unreadable: [] });
    const server = startRequestServer({ connection, service: slowService([]), tenants, quotas, inProgress, scheduler: new VirtualTimeScheduler() });
    const codes = async (kind: RequestKind, body: object, count: number) =>
      (await Promise.all(Array.from({ length: count }, () => send(kind, "TEAM_A", body)))).map((reply) => reply.ok || reply.error!.code);
    expect(await codes("observe", observeBody, 3)).toEqual([true, true, "quota"]);
    expect(await codes("get", getBody, 3)).toEqual(["not_found", "not_found", "quota"]);
    expect(await codes("cancel", getBody, 2)).toEqual(["not_found", "quota"]);
    expect(await codes("list", { deployment: "api" }, 2)).toEqual([true, "quota"]);
    expect(scopes.map(({ caller, deployment }) => [caller.id, deployment])).toEqual([["TEAM_A", "api"]]);
    await server.stop();
  });
});

/**
 * One tenant flooding the service, as a process of its own, so that the flood's own CPU does not
 * delay the event loop of the test measuring another tenant: `FLOOD_OUTSTANDING` requests in
 * flight at all times, get, get, list and observe in turn, each sent again as soon as it is
 * answered, until SIGTERM; then it waits for the replies still due and prints one JSON line,
 * `FloodReport`. A line `{"flooding":true}` says every request of the first round is out.
 *
 *   NATS_URL, NATS_USER, NATS_PASSWORD   the tenant's user (its requests cross its imports)
 *   FLOOD_OUTSTANDING                    requests in flight (default 900)
 *   FLOOD_NAMESPACE                      the tenant's namespace, for its observe requests
 *
 * Run with `node test/e2e/support/requestFlood.ts` (Node strips the types).
 */
import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "@nats-io/transport-node";

export type FloodReport = {
  /** Per request kind, how many got each answer: `ok`, an error code, or `timeout`. */
  answers: Record<string, Record<string, number>>;
  /** The first message of each refusal code and kind, as the service worded it. */
  messages: Record<string, string>;
};

const kinds = ["get", "get", "list", "observe"] as const;
const timeoutMs = 30_000;

async function flood(nc: NatsConnection, outstanding: number, namespace: string): Promise<FloodReport> {
  const report: FloodReport = { answers: {}, messages: {} };
  let stopping = false;
  process.once("SIGTERM", () => (stopping = true));
  const body = (kind: (typeof kinds)[number]): string => {
    if (kind === "get") return JSON.stringify({ observationId: randomUUID() });
    if (kind === "list") return "{}";
    const name = `flood-${randomUUID().slice(0, 8)}`;
    return JSON.stringify({
      key: `flood/${name}`,
      deployment: "flood",
      require: "healthy",
      timeoutSeconds: 60,
      absentGraceSeconds: 1,
      resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace, name }],
    });
  };
  const note = (kind: string, answer: string, message?: string) => {
    const counts = (report.answers[kind] ??= {});
    counts[answer] = (counts[answer] ?? 0) + 1;
    if (message !== undefined) report.messages[`${kind} ${answer}`] ??= message;
  };
  let sentFirstRound = 0;
  const worker = async (i: number) => {
    const kind = kinds[i % kinds.length]!;
    for (let first = true; !stopping; first = false) {
      const reply = nc.request(`stagewatch.${kind}`, body(kind), { timeout: timeoutMs });
      if (first && ++sentFirstRound === outstanding) process.stdout.write(`${JSON.stringify({ flooding: true })}\n`);
      try {
        const answer = (await reply).json<{ ok: boolean; error?: { code: string; message: string } }>();
        if (answer.ok) note(kind, "ok");
        else note(kind, answer.error!.code, answer.error!.message);
      } catch (error) {
        note(kind, (error as Error).name === "TimeoutError" ? "timeout" : `error ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: outstanding }, (_, i) => worker(i)));
  return report;
}

const nc = await connect({ servers: process.env.NATS_URL, user: process.env.NATS_USER, pass: process.env.NATS_PASSWORD });
const report = await flood(nc, Number(process.env.FLOOD_OUTSTANDING ?? 900), process.env.FLOOD_NAMESPACE ?? "default");
await nc.close();
process.stdout.write(`${JSON.stringify(report)}\n`);

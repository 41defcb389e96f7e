/**
 * One tenant cannot starve another (issue 32, finding 2), tried from outside on the documented
 * layout (support/accountLayout.ts: the shipped accounts.conf and tenants.yaml, the compiled
 * `stagewatch serve`): TEAM_B holds 900 requests outstanding (get, list and observe, each sent
 * again as soon as it is answered, from a process of its own) while TEAM_A does what a CI job does,
 * a handful of observe, get and list. TEAM_A's requests all answer ok; TEAM_B's are refused
 * `quota`, naming its numbers; the flood leaves no consumer behind on the leases stream (each list
 * used to leave one, until the server's limit made every list fail); list still works for both;
 * the refusals are logged by sample. TEAM_A's latencies before and during the flood are printed,
 * not asserted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames, ObserverQuotaError } from "../../src/bus/index.ts";
import { REPO_ROOT, startLogged } from "../cluster/stagewatch.ts";
import { useAccountLayout, type AccountLayout } from "./support/accountLayout.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import type { FloodReport } from "./support/requestFlood.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const names = busNames("stagewatch");
const kc = kubeConfig();
const layouts = useAccountLayout();
const outstanding = 900;

let started: AccountLayout;
let namespaceA: string;
let namespaceB: string;
let teamA: NatsConnection;
let service: NatsConnection;

type Reply = { ok: boolean; observationId?: string; items?: { observationId: string }[]; error?: { code: string; message: string } };
type Timed = { what: string; ms: number; answer: string };

/** TEAM_A's request as its CI job sends it, timed; a timeout is an answer too. */
async function timed(what: string, subject: string, body: object): Promise<Timed & { reply?: Reply }> {
  const from = performance.now();
  try {
    const reply = (await teamA.request(subject, JSON.stringify(body), { timeout: 10_000 })).json<Reply>();
    return { what, ms: performance.now() - from, answer: reply.ok ? "ok" : `${reply.error!.code}: ${reply.error!.message}`, reply };
  } catch (error) {
    return { what, ms: performance.now() - from, answer: (error as Error).name === "TimeoutError" ? "timeout" : (error as Error).message };
  }
}

/** What a CI job of TEAM_A does, `rounds` times, a quarter second apart: observe, get what it started, list. */
async function teamAWork(rounds: number): Promise<Timed[]> {
  const done: Timed[] = [];
  const pause = () => new Promise((resolve) => setTimeout(resolve, 250));
  for (let round = 0; round < rounds; round++) {
    const observed = await timed("observe", names.observe, observeRequest({ deployment: "api", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceA, name: "api" }] }));
    done.push(observed);
    await pause();
    done.push(await timed("get", names.get, { observationId: observed.reply?.observationId ?? "missing" }));
    await pause();
    done.push(await timed("list", names.list, {}));
    await pause();
  }
  return done;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function latencies(work: readonly Timed[]): string {
  const summary = (of: readonly Timed[]) => {
    const ms = of.map((t) => t.ms).sort((a, b) => a - b);
    return `p50 ${percentile(ms, 50).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms over ${ms.length}`;
  };
  const byKind = ["observe", "get", "list"].map((what) => `${what} ${summary(work.filter((t) => t.what === what))}`);
  return `${summary(work)} (${byKind.join("; ")})`;
}

const leaseConsumers = async () => (await (await jetstreamManager(service)).streams.info(`KV_${names.leasesBucket}`)).state.consumer_count;

beforeAll(async () => {
  started = await layouts.start({ name: "tenant-fairness" });
  // The shipped tenants file's patterns: team-a-* and team-b-*.
  [namespaceA, namespaceB] = await Promise.all([createNamespace("team-a"), createNamespace("team-b")]);
  await apply(kc, deployment({ namespace: namespaceA, name: "api" }).manifest, deployment({ namespace: namespaceA, name: "slow", fault: Fault.NeverReady }).manifest);
  teamA = await started.connection("TEAM_A");
  service = await started.connection("STAGEWATCH");
}, 300_000);

afterAll(async () => {
  await Promise.all([namespaceA, namespaceB].filter(Boolean).map(deleteNamespace));
});

describe("TEAM_B holding 900 requests outstanding", () => {
  it("TEAM_A's observe, get and list all answer ok; TEAM_B is refused quota naming its numbers; no consumer is left on the leases stream; list works for both after", async () => {
    // An observation of TEAM_A's in progress throughout, for the lists to show.
    const slow = await (await started.observer("TEAM_A")).observe(
      observeRequest({ deployment: "slow", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceA, name: "slow" }], timeoutSeconds: 600 }),
    );
    const quiet = await teamAWork(3);
    const consumersBefore = await leaseConsumers();

    const floodLog = join(started.dir, "flood.log");
    const flood = startLogged(process.execPath, [join(REPO_ROOT, "test", "e2e", "support", "requestFlood.ts")], {
      cwd: started.dir,
      env: { PATH: process.env.PATH, NATS_URL: started.nats.url, NATS_USER: started.user("TEAM_B").user, NATS_PASSWORD: started.user("TEAM_B").pass, FLOOD_OUTSTANDING: String(outstanding), FLOOD_NAMESPACE: namespaceB },
      logFile: floodLog,
    });
    let duringFlood: Timed[];
    let mostConsumers = consumersBefore;
    try {
      await eventually("TEAM_B's flood under way", async () => (readFileSync(floodLog, "utf8").includes('{"flooding":true}') ? true : undefined), { timeoutMs: 60_000 });
      const sampling = setInterval(() => void leaseConsumers().then((count) => (mostConsumers = Math.max(mostConsumers, count)), () => undefined), 500);
      try {
        duringFlood = await teamAWork(6);
      } finally {
        clearInterval(sampling);
      }
    } finally {
      await flood.stop(60_000);
    }
    // The process's output reaches its log file through a pipe: it may land just after the exit.
    const reportLine = await eventually("TEAM_B's flood report", async () => readFileSync(floodLog, "utf8").split("\n").find((line) => line.startsWith('{"answers"')), { timeoutMs: 10_000 });
    const report = JSON.parse(reportLine) as FloodReport;
    const refusedB = Object.values(report.answers).reduce((sum, counts) => sum + (counts.quota ?? 0), 0);
    const answeredB = Object.values(report.answers).reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0);
    const serveLog = readFileSync(join(started.dir, "serve.log"), "utf8");
    const refusalLines = serveLog.split("\n").filter((line) => line.includes("request refused") || line.includes("requests refused")).length;

    console.log(
      [
        `TEAM_A alone: ${latencies(quiet)}`,
        `TEAM_A during TEAM_B's flood of ${outstanding} outstanding: ${latencies(duringFlood)}`,
        `TEAM_B's answers: ${JSON.stringify(report.answers)}`,
        `TEAM_B's refusals: ${JSON.stringify(report.messages, null, 1)}`,
        `leases stream consumers: ${consumersBefore} before, at most ${mostConsumers} during`,
        `refusal log lines: ${refusalLines} for ${answeredB} of TEAM_B's requests answered (${refusedB} quota)`,
      ].join("\n"),
    );

    // TEAM_A: every request answered ok, none late past its timeout, none refused for TEAM_B's load.
    expect(duringFlood.filter((t) => t.answer !== "ok").map((t) => `${t.what}: ${t.answer}`)).toEqual([]);
    expect(duringFlood).toHaveLength(18);

    // TEAM_B: refused on arrival, each refusal naming TEAM_B's own count against its bound.
    expect(refusedB).toBeGreaterThan(0);
    const quotaMessages = Object.entries(report.messages).filter(([key]) => key.endsWith(" quota")).map(([, message]) => message);
    expect(quotaMessages.length).toBeGreaterThan(0);
    for (const message of quotaMessages) expect(message).toMatch(/^tenant TEAM_B has (used )?\d+(\.\d+)? of \d+(\.\d+)? /);
    expect(quotaMessages.some((message) => /requests pending on this replica \(limit pendingPerCaller \d+; the replica's queue \d+ of \d+/.test(message))).toBe(true);
    // Nothing failed inside the service (a list used to answer `internal` once the consumers ran out).
    expect(Object.entries(report.answers).filter(([, counts]) => counts.internal !== undefined)).toEqual([]);

    // The refusals were logged by sample: a few lines, not one per refusal.
    expect(refusalLines).toBeLessThan(Math.max(50, refusedB / 20));

    // No list left a consumer on the leases stream: the service's own lease watch is all there is.
    expect(await eventually("the leases stream's consumers as before the flood", async () => ((await leaseConsumers()) === consumersBefore ? true : undefined), { timeoutMs: 30_000 })).toBe(true);

    // list works for both after the flood, each seeing its own; TEAM_B's, once the second in which
    // its flood spent its lists is over (`quota` is retryable).
    const listA = await (await started.observer("TEAM_A")).list();
    expect(listA.items.map((item) => item.observationId)).toContain(slow.observationId);
    const teamBClient = await started.observer("TEAM_B");
    const listB = await eventually("TEAM_B's list", () => teamBClient.list().catch((error: unknown) => (error instanceof ObserverQuotaError ? undefined : Promise.reject(error))), { timeoutMs: 10_000 });
    expect(listB.items.map((item) => item.observationId)).not.toContain(slow.observationId);
    await (await started.observer("TEAM_A")).cancel(slow.observationId);
  }, 300_000);
});

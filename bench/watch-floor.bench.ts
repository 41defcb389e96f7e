// What receiving a watch event costs when each comes on its own, as from the API server at a live
// cluster's rates: one event a write, so one wake-up and one read a event (bench cluster counted
// 1,000 read system calls per 1,000 watch events of `stagewatch serve`). The whole service's CPU
// per 1,000 watch events in bench cluster is measured at 246 events a second; this says how much
// of it any Node process pays just to be handed those events, and how much the transport adds.
// A paced stand-in in another process (bench/watch/pacedServer.ts, pinned to the other core)
// writes realistic 6.8 KB pod updates at 250, 1,000 and 4,000 a second; this process, pinned to
// one core, reads them:
// - a C read(2) loop (bench/watch/floorReader.c, compiled here when a C compiler is on the
//   machine): what any process pays on this machine to be handed each event, the runtime aside;
// - node:http, bytes only: the response's 'data' events, split into lines, nothing parsed: the
//   floor of waking up for every event in Node;
// - node:http and JSON.parse: each line parsed too, the floor of a watch client that reads events;
// - kubeHttpTransport at the baseline commit (WATCH_FLOOR_BASELINE, default d07e2d0: undici's
//   fetch, its web stream read by an async generator yielding each line) and as it is now (undici's
//   request, each chunk's lines handed over synchronously); both cut managedFields and parse.
// CPU is this process's user + system time from the first event to the last, per event, the
// median of `rounds` runs; read system calls from /proc/self/io over the same span.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { extractBaseline } from "./support/baselineSource.ts";
import { pinToCoreZero } from "./support/pinning.ts";
import { writeResults } from "./support/results.ts";
import { standInKubeConfig, startServerProcess } from "./watch/standIn.ts";

const baselineCommit = process.env["WATCH_FLOOR_BASELINE"] ?? "d07e2d0";
const rates = [250, 1_000, 4_000];
const secondsPerRun = 6;
const rounds = 5;

type Streams = typeof import("../src/streams/index.ts");

interface Cost {
  events: number;
  cpuMicrosecondsPerEvent: number;
  readSyscallsPerEvent: number | null;
}

/** Read system calls of this process so far; null without /proc. */
function readSyscalls(): number | null {
  try {
    return Number(/^syscr: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);
  } catch {
    return null;
  }
}

/** Counts events from the first to the last: CPU and reads over those in between. */
function meter(expected: number) {
  let count = 0;
  let cpuAtFirst: NodeJS.CpuUsage | undefined;
  let readsAtFirst: number | null = null;
  let cost: Cost | undefined;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return {
    finished,
    tick(): void {
      count += 1;
      if (count === 1) {
        cpuAtFirst = process.cpuUsage();
        readsAtFirst = readSyscalls();
      } else if (count === expected) {
        const cpu = process.cpuUsage(cpuAtFirst);
        const reads = readSyscalls();
        cost = {
          events: expected,
          cpuMicrosecondsPerEvent: Math.round(((cpu.user + cpu.system) / (expected - 1)) * 10) / 10,
          readSyscallsPerEvent: reads === null || readsAtFirst === null ? null : Math.round(((reads - readsAtFirst) / (expected - 1)) * 100) / 100,
        };
        finish();
      }
    },
    get cost(): Cost {
      if (!cost) throw new Error(`only ${count} of ${expected} events arrived`);
      return cost;
    },
  };
}

/** node:http's response, split into lines; `parse`: each line through JSON.parse. */
async function bareClient(port: number, expected: number, parse: boolean): Promise<Cost> {
  const counted = meter(expected);
  let pending: Buffer[] = [];
  get(`http://127.0.0.1:${port}/api/v1/pods?watch=true`, (response) => {
    response.on("data", (chunk: Buffer) => {
      let start = 0;
      let newline = chunk.indexOf(0x0a);
      while (newline >= 0) {
        const piece = chunk.subarray(start, newline);
        const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        if (parse) JSON.parse(line.toString("utf8"));
        counted.tick();
        start = newline + 1;
        newline = chunk.indexOf(0x0a, start);
      }
      if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
    });
  });
  await counted.finished;
  return counted.cost;
}

async function transportClient(streams: Streams, port: number, expected: number): Promise<Cost> {
  const counted = meter(expected);
  const subscription = streams
    .kubeHttpTransport(standInKubeConfig(port))
    .watch({ path: "/api/v1/pods", query: { watch: true, resourceVersion: "1" } })
    .subscribe({ next: () => counted.tick(), error: (error: unknown) => console.error(error) });
  await counted.finished;
  subscription.unsubscribe();
  return counted.cost;
}

/** bench/watch/floorReader.c compiled into `dir`, or undefined where no C compiler is (the row is then left out). */
function compileFloorReader(dir: string): string | undefined {
  const binary = join(dir, "floor-reader");
  try {
    execFileSync("cc", ["-O2", "-o", binary, fileURLToPath(new URL("watch/floorReader.c", import.meta.url))], { stdio: "ignore" });
    return binary;
  } catch {
    return undefined;
  }
}

/** The C reader's own count of its CPU and reads; it inherits this process's core. */
async function cReader(binary: string, port: number, expected: number): Promise<Cost> {
  const { stdout } = await promisify(execFile)(binary, [String(port), String(expected)]);
  return JSON.parse(stdout) as Cost;
}

const median = (samples: readonly Cost[]): Cost => [...samples].sort((a, b) => a.cpuMicrosecondsPerEvent - b.cpuMicrosecondsPerEvent)[Math.floor(samples.length / 2)]!;

const pinned = pinToCoreZero();
const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRoot = extractBaseline(repository, baselineCommit, "watch-floor");
const scratch = mkdtempSync(join(tmpdir(), "watch-floor-"));
try {
  const floorReader = compileFloorReader(scratch);
  const baseline = (await import(join(baselineRoot, "src/streams/index.ts"))) as Streams;
  const current = (await import(join(repository, "src/streams/index.ts"))) as Streams;
  const clients: Record<string, (port: number, expected: number) => Promise<Cost>> = {
    ...(floorReader !== undefined && { "C read(2) loop, bytes only": (port: number, expected: number) => cReader(floorReader, port, expected) }),
    "node:http, bytes only": (port, expected) => bareClient(port, expected, false),
    "node:http and JSON.parse": (port, expected) => bareClient(port, expected, true),
    [`kubeHttpTransport at ${baselineCommit}`]: (port, expected) => transportClient(baseline, port, expected),
    "kubeHttpTransport now": (port, expected) => transportClient(current, port, expected),
  };
  const byRate: Record<string, Record<string, Cost & { samples: number[] }>> = {};
  for (const rate of rates) {
    const events = rate * secondsPerRun;
    const server = await startServerProcess("pacedServer.ts", { rate, events }, pinned ? 1 : undefined);
    try {
      const samples: Record<string, Cost[]> = Object.fromEntries(Object.keys(clients).map((name) => [name, []]));
      for (let round = 0; round < rounds; round++) {
        for (const [name, client] of Object.entries(clients)) {
          const cost = await client(server.port, events);
          samples[name]!.push(cost);
          console.log(`${rate}/s round ${round + 1} ${name}: ${cost.cpuMicrosecondsPerEvent} µs CPU a event, ${cost.readSyscallsPerEvent} reads a event`);
        }
      }
      byRate[String(rate)] = Object.fromEntries(
        Object.entries(samples).map(([name, costs]) => [name, { ...median(costs), samples: costs.map((cost) => cost.cpuMicrosecondsPerEvent) }]),
      );
    } finally {
      server.stop();
    }
  }
  const file = writeResults("watch-floor", {
    pinnedToOneCore: pinned,
    baselineCommit,
    secondsPerRun,
    rounds,
    transport: "plain HTTP/1.1 on loopback, one 6.8 KB pod update a write (the API server speaks TLS: its decryption is not in these figures)",
    eventsPerSecond: byRate,
  });
  console.log(JSON.stringify(byRate, null, 2), `-> ${file}`);
} finally {
  rmSync(baselineRoot, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);

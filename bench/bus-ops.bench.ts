// What the live engine asks of NATS, at 100, 1,000 and 10,000 observations in flight: the real
// engine (informers over the watch stand-in of bench/watch, the observation driver, record writer,
// lease keeper, event publisher) against a real nats-server with JetStream, for the code as it is
// and for the code before this work (baselineCommit, taken from git), one after the other in the
// same run. 20,000 pods in all, spread over the Deployments; each Deployment is observed once.
// Counted by a second connection subscribed to every KV subject and to the events subjects (a
// KV write is a publish on `$KV.<bucket>.<key>`, so it sees each one), per phase:
// - idle: 10 s with no watch event (lease renewals or heartbeats, and what else runs on a timer;
//   a heartbeat is a write in the leases bucket, so it counts as a lease write), with the CPU it took;
// - rollout: every Deployment's ready count going up one replica at a time until one short of
//   done (each step a message-only change: "3/20 ready" to "4/20 ready"), then every rollout
//   complete, which decides every observation at once; counted until every verdict was published,
//   plus the quiet interval. Its event_to_verdict figures (watch event received to the verdict's
//   stream acknowledgement, the engine's own histogram) describe that burst, not a steady state.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { buildOrReuseBinaries } from "../test/cluster/binaries.ts";
import { startNatsServer } from "../test/cluster/nats.ts";
import { latencies } from "./cluster/scale.ts";
import { extractBaseline } from "./support/baselineSource.ts";
import { type Implementation, loadImplementation, startNatsEngine } from "./support/natsEngine.ts";
import { collectGarbage, writeResults } from "./support/results.ts";
import { startStandIn } from "./watch/standIn.ts";

/** The code compared with: BUS_OPS_BASELINE, or main before the per-replica heartbeat (e33da00 was the one before issue 21's record and event changes). */
const baselineCommit = process.env["BUS_OPS_BASELINE"] ?? "f378c59";
const pods = 20_000;
const observationCounts = (process.env["BUS_OPS_SIZES"] ?? "100,1000,10000").split(",").map(Number);
const idleSeconds = 10;
/** After the last verdict: what a quiet write waits, and then some. */
const drainSeconds = 3;

/** Every KV write and event publish of one subject prefix, by kind, from the moment it is made. */
async function countOperations(nc: NatsConnection, names: { recordsBucket: string; leasesBucket: string; allEvents: string }) {
  const counts = { recordWrites: 0, leaseWrites: 0, otherKvWrites: 0, events: 0, verdicts: 0 };
  nc.subscribe("$KV.>", {
    callback: (_, message) => {
      const bucket = message.subject.split(".")[1];
      if (bucket === names.recordsBucket) counts.recordWrites += 1;
      else if (bucket === names.leasesBucket) counts.leaseWrites += 1;
      else counts.otherKvWrites += 1;
    },
  });
  nc.subscribe(names.allEvents, {
    callback: (_, message) => {
      counts.events += 1;
      if (message.json<{ type: string }>().type === "verdict") counts.verdicts += 1;
    },
  });
  await nc.flush();
  return { counts, snapshot: () => ({ ...counts }) };
}

type Counts = Awaited<ReturnType<typeof countOperations>>["counts"];
const per = (after: Counts, before: Counts, seconds: number) => {
  const kv = after.recordWrites - before.recordWrites + (after.leaseWrites - before.leaseWrites) + (after.otherKvWrites - before.otherKvWrites);
  return {
    recordWrites: after.recordWrites - before.recordWrites,
    leaseWrites: after.leaseWrites - before.leaseWrites,
    kvWritesPerSecond: Math.round(kv / seconds),
    eventsPublished: after.events - before.events,
    eventsPerSecond: Math.round((after.events - before.events) / seconds),
    seconds: Math.round(seconds * 10) / 10,
  };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(impl: Implementation, natsUrl: string, watchPort: number, observations: number) {
  let deploymentEvents = 0;
  const eventToVerdictMs: number[] = [];
  const engine = await startNatsEngine(impl, {
    natsUrl,
    watchPort,
    prefix: `ops${impl.name}${observations}`,
    onWatchEvent: (kind) => void (kind === "apps/Deployment" && deploymentEvents++),
    onEventToVerdict: (ms) => void eventToVerdictMs.push(ms),
  });
  const counter = await connect({ servers: natsUrl });
  const counted = await countOperations(counter, engine.names);
  await engine.observeDeployments(observations);
  while (!engine.hub.hasSynced()) await sleep(20);
  await sleep(1_000);

  const idleFrom = counted.snapshot();
  const idleStart = performance.now();
  const idleCpuStart = process.cpuUsage();
  await sleep(idleSeconds * 1000);
  const idleCpu = process.cpuUsage(idleCpuStart);
  const idle = per(counted.snapshot(), idleFrom, (performance.now() - idleStart) / 1000);

  collectGarbage();
  const rolloutFrom = counted.snapshot();
  const rolloutStart = performance.now();
  const cpuStart = process.cpuUsage();
  await (await fetch(`http://127.0.0.1:${watchPort}/go?stream=rollout`)).text();
  const expectedEvents = observations * (pods / observations) + observations;
  // Bounded: verdicts that stop coming for a minute are reported as missing instead of hanging the run.
  let lastVerdicts = 0;
  let lastProgressAt = performance.now();
  while (counted.counts.verdicts - rolloutFrom.verdicts < observations && performance.now() - lastProgressAt < 60_000) {
    await sleep(20);
    if (counted.counts.verdicts !== lastVerdicts) [lastVerdicts, lastProgressAt] = [counted.counts.verdicts, performance.now()];
  }
  const verdictsMissing = observations - (counted.counts.verdicts - rolloutFrom.verdicts);
  const decidedAfter = (Math.min(performance.now(), lastProgressAt) - rolloutStart) / 1000;
  await sleep(drainSeconds * 1000);
  const cpu = process.cpuUsage(cpuStart);
  const rollout = per(counted.snapshot(), rolloutFrom, (performance.now() - rolloutStart) / 1000);
  if (deploymentEvents < expectedEvents) throw new Error(`${deploymentEvents} Deployment events, expected ${expectedEvents}`);

  await engine.stop();
  await counter.drain();
  return {
    idle: {
      ...idle,
      leaseWritesPerSecond: Math.round((idle.leaseWrites / idle.seconds) * 10) / 10,
      leaseWritesPerObservationPerMinute: Math.round((idle.leaseWrites / observations / idle.seconds) * 60 * 100) / 100,
      cpuSeconds: Math.round(((idleCpu.user + idleCpu.system) / 1e6) * 1000) / 1000,
    },
    rollout: {
      ...rollout,
      leaseWritesPerSecond: Math.round((rollout.leaseWrites / rollout.seconds) * 10) / 10,
      watchEvents: deploymentEvents,
      secondsToLastVerdict: Math.round(decidedAfter * 10) / 10,
      verdictsMissing,
      recordWritesPer1000WatchEvents: Math.round((rollout.recordWrites / deploymentEvents) * 1000),
      cpuSecondsPer1000WatchEvents: Math.round(((cpu.user + cpu.system) / 1e6 / deploymentEvents) * 1000 * 1000) / 1000,
      eventToVerdict: latencies(eventToVerdictMs),
    },
  };
}

const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRoot = extractBaseline(repository, baselineCommit, "bus-ops");
const natsDir = mkdtempSync(join(tmpdir(), "stagewatch-bus-ops-nats-"));
const nats = await startNatsServer(buildOrReuseBinaries().natsServer, natsDir);
try {
  const implementations = [await loadImplementation("baseline", baselineRoot), await loadImplementation("current", repository)];
  const results: Record<string, Record<string, unknown>> = {};
  for (const observations of observationCounts) {
    const size = { deployments: observations, podsPerDeployment: pods / observations };
    results[observations] = {};
    for (const impl of implementations) {
      // A server of its own each time: its watches stream once.
      const server = await startStandIn({ ...size, passes: 1 });
      try {
        const measured = await run(impl, nats.url, server.port, observations);
        results[observations]![impl.name] = measured;
        console.log(`${observations} observations, ${impl.name}: ${JSON.stringify(measured)}`);
      } finally {
        server.stop();
      }
    }
  }
  const file = writeResults("bus-ops", { baselineCommit, pods, idleSeconds, drainSeconds, observations: results });
  console.log(`-> ${file}`);
} finally {
  await nats.stop();
  rmSync(baselineRoot, { recursive: true, force: true });
  rmSync(natsDir, { recursive: true, force: true });
}
process.exit(0);

// CPU per observation with trace export on and off, in one run (issue 22's closing note): the
// engine (engineHarness: a real ObservationEngine over a scripted API server, in-memory records,
// virtual time) decides observations of a healthy Deployment, once with no trace sink and once
// with the OtlpTraceSink exporting over OTLP/HTTP protobuf, through the SDK's batch processor,
// to a stub collector in a child process (so the collector's own parsing is not counted). Rounds
// alternate off and on; the figure is the median round's process CPU (user + system) divided by
// the observations decided, the sink's flush at the end of a round included.
import { spawn } from "node:child_process";
import { silentLogger } from "../src/logging/index.ts";
import { drainMicrotasks, engineHarness, InMemoryHistories, observationRequest } from "../src/observations/testing/index.ts";
import { OtlpTraceSink } from "../src/tracing/index.ts";
import { deployment } from "../test/fixtures/kube/workloads.ts";
import { writeResults } from "./support/results.ts";

const perRound = 400;
const rounds = 7;

/** An OTLP/HTTP endpoint that reads each request and answers 200, in a process of its own. */
async function stubCollector(): Promise<{ url: string; received: () => Promise<number>; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const http = require("node:http"); let requests = 0;
         const server = http.createServer((req, res) => { req.resume(); req.on("end", () => { requests++; res.writeHead(200, {"content-type": "application/x-protobuf"}).end(); }); });
         server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
         process.on("message", () => process.send({ requests }));`,
    ],
    { stdio: ["ignore", "inherit", "inherit", "ipc"] },
  );
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve((m as { port: number }).port)));
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    received: () => new Promise((resolve) => (child.once("message", (m) => resolve((m as { requests: number }).requests)), child.send("count"))),
    stop: () => void child.kill(),
  };
}

async function round(exportTo: string | undefined): Promise<{ cpuMicros: number; decided: number }> {
  const traces = exportTo === undefined ? undefined : new OtlpTraceSink({ settings: { url: exportTo, batch: { scheduledDelayMillis: 50 } }, logger: silentLogger });
  const h = engineHarness({ history: new InMemoryHistories(), ...(traces && { traces }) });
  h.cluster.put(deployment({ replicas: 2 }));
  const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  // Warm-up: informers listed and synced, code paths compiled.
  await h.start(observationRequest({ key: "warm-up", traceparent }));
  await h.advance(0);
  const before = process.cpuUsage();
  for (let i = 0; i < perRound; i++) {
    await h.start(observationRequest({ key: `bench-${i}`, traceparent }));
  }
  await drainMicrotasks();
  await traces?.shutdown();
  const used = process.cpuUsage(before);
  const decided = h.events.events.filter((event) => event.type === "verdict").length - 1;
  if (decided !== perRound) throw new Error(`decided ${decided} of ${perRound}`);
  h.engine.stop();
  h.hub.stop();
  return { cpuMicros: used.user + used.system, decided };
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

const collector = await stubCollector();
const off: number[] = [];
const on: number[] = [];
try {
  for (let i = 0; i < rounds; i++) {
    const a = await round(undefined);
    off.push(a.cpuMicros / a.decided);
    const b = await round(collector.url);
    on.push(b.cpuMicros / b.decided);
  }
  const requests = await collector.received();
  const results = {
    method: `${rounds} rounds alternating, ${perRound} observations each (a healthy Deployment, decided on the caches' sync), process CPU (user+system) per observation; on: OtlpTraceSink over OTLP/HTTP protobuf to a stub collector in another process, flushed at the end of each round`,
    observationsPerRound: perRound,
    exportOff: { cpuMicrosPerObservation: Math.round(median(off)), rounds: off.map(Math.round) },
    exportOn: { cpuMicrosPerObservation: Math.round(median(on)), rounds: on.map(Math.round) },
    overheadMicrosPerObservation: Math.round(median(on) - median(off)),
    overheadPercent: Math.round(((median(on) - median(off)) / median(off)) * 1000) / 10,
    collectorRequests: requests,
  };
  const file = writeResults("tracing-overhead", results);
  console.log(JSON.stringify(results, null, 2));
  console.log(`wrote ${file}`);
} finally {
  collector.stop();
}

// A stand-in API server for bench/watch-floor, in a process of its own: every pod watch gets
// `events` realistic pod updates (the 6.8 KB pod of cluster.ts, its resourceVersion going up), each
// written on its own at `rate` a second, as the API server flushes every watch event by itself.
// So the client wakes once per event, as `stagewatch serve` does at a live cluster's rates (246 a
// second in bench cluster), where bench/watch-throughput's 64 KiB writes carry ten events each.
// Prints the port on stdout once listening.
import { createServer } from "node:http";
import { podWatchLines, watchCluster } from "./cluster.ts";

const { rate, events } = JSON.parse(process.argv[2] ?? "{}") as { rate: number; events: number };
const [line] = podWatchLines(watchCluster({ deployments: 1, podsPerDeployment: 1 }), "2", 1);
const [before, after] = line!.split('"resourceVersion":"2"') as [string, string];
// Timers fire at most once a millisecond: past 1,000 a second, several events a tick, each its own write.
const intervalMs = Math.max(1, Math.round(1000 / rate));
const perTick = Math.max(1, Math.round((rate * intervalMs) / 1000));

const server = createServer((request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  let sent = 0;
  const timer = setInterval(() => {
    for (let i = 0; i < perTick && sent < events; i++) response.write(`${before}"resourceVersion":"${++sent + 2}"${after}\n`);
    if (sent >= events) {
      clearInterval(timer);
      response.end();
    }
  }, intervalMs);
  request.on("close", () => clearInterval(timer));
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
});

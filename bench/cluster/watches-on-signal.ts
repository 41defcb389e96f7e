// Loaded into `stagewatch serve` by the cluster benchmark (NODE_OPTIONS="--import=...") with
// STAGEWATCH_BENCH_WATCH_FILE naming where to write. It records, from undici's diagnostics
// channels (published by the HTTP client the service's watches go through, bundled or not: the
// channels are Node's, by name), every watch request's life on CLOCK_MONOTONIC: sent (with the
// timeoutSeconds it asked for), answered (headers), ended (the server closing it, or an error) and
// the event loop's longest delay before that end; and for Deployment watches, when each
// resourceVersion arrived. The benchmark's second SIGUSR2 writes them (watchTimeline.ts), so the
// slowest verdicts' time before the decision can be cut at the service's receipt of the decisive
// event: the API server's delivery before it, the service's own queue and judgement after it.
// Nothing here touches the service's code; the scan costs a regular expression over each line of
// the Deployment watches, some 20,000 lines a run at full size.
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { toMonotonicUs } from "./clocks.ts";
import type { RecordedWatch, WatchRecording } from "./watchTimeline.ts";

const file = process.env["STAGEWATCH_BENCH_WATCH_FILE"];

interface UndiciRequest {
  origin?: unknown;
  path?: string;
  method?: string;
}

if (file !== undefined) {
  const watches = new Map<UndiciRequest, RecordedWatch>();
  const deploymentArrivals: [rv: string, atUs: number][] = [];
  const now = () => Math.round(toMonotonicUs(performance.now()));
  // Read and reset at each watch's end: whether the service's loop stalled before the server let
  // go of its watch (a reader that does not read lets the cacher's buffer fill). prom-client's
  // event-loop monitor in the service samples as often (10 ms); this one adds a timer at 20.
  const loopDelay = monitorEventLoopDelay({ resolution: 20 });
  loopDelay.enable();
  const ended = (watch: RecordedWatch) => {
    watch.endedUs = now();
    watch.loopDelayMaxMs = Math.round(loopDelay.max / 1e5) / 10;
    loopDelay.reset();
  };
  /** `record` for each message of `channel` about a watch followed here. */
  const onWatch = (channel: string, record: (watch: RecordedWatch, message: unknown) => void) =>
    subscribe(channel, (message) => {
      const watch = watches.get((message as { request: UndiciRequest }).request);
      if (watch) record(watch, message);
    });
  subscribe("undici:request:create", (message) => {
    const { request } = message as { request: UndiciRequest };
    const path = request.path ?? "";
    if (!path.includes("watch=true")) return;
    const timeoutSeconds = /[?&]timeoutSeconds=(\d+)/.exec(path)?.[1];
    watches.set(request, {
      path: path.split("?")[0]!,
      resourceVersion: /[?&]resourceVersion=([^&]*)/.exec(path)?.[1] ?? "",
      ...(timeoutSeconds !== undefined && { timeoutSeconds: Number(timeoutSeconds) }),
      sentUs: now(),
    });
  });
  // Sent on a connected socket: from `sentUs` to here is the connection's set-up (TCP, TLS) when
  // the request opened one of its own.
  onWatch("undici:client:sendHeaders", (watch, message) => {
    watch.headersSentUs = now();
    watch.protocol = (message as { socket?: { alpnProtocol?: string | false } }).socket?.alpnProtocol || "http/1.1";
  });
  onWatch("undici:request:headers", (watch, message) => {
    watch.answeredUs = now();
    watch.status = (message as { response: { statusCode: number } }).response.statusCode;
  });
  onWatch("undici:request:trailers", ended);
  onWatch("undici:request:error", (watch, message) => {
    ended(watch);
    watch.error = String((message as { error?: { name?: string } }).error?.name ?? "error");
  });
  // A Deployment's watch line carries one resourceVersion, its metadata's. A line is received when
  // the chunk that ends it is: what follows a chunk's last newline waits for the next chunk.
  const resourceVersion = /"resourceVersion":"(\d+)"/g;
  const unfinished = new Map<UndiciRequest, string>();
  subscribe("undici:request:bodyChunkReceived", (message) => {
    const { request, chunk } = message as { request: UndiciRequest; chunk: Buffer };
    if (!watches.get(request)?.path.endsWith("/deployments")) return;
    const atUs = now();
    const text = (unfinished.get(request) ?? "") + chunk.toString("latin1");
    const end = text.lastIndexOf("\n") + 1;
    unfinished.set(request, text.slice(end));
    for (const match of text.slice(0, end).matchAll(resourceVersion)) deploymentArrivals.push([match[1]!, atUs]);
  });
  let signals = 0;
  process.on("SIGUSR2", () => {
    signals += 1;
    if (signals !== 2) return;
    writeFileSync(file, JSON.stringify({ watches: [...watches.values()], deploymentArrivals } satisfies WatchRecording));
    // Dropped before gc-on-signal's collections (loaded after this file, its handler runs after
    // this one): the heap the benchmark then reads is the service's, not this recording's (about
    // 18,500 receipts at full size; kept, they read as 1,016 B of heap per cached pod against 795).
    watches.clear();
    unfinished.clear();
    loopDelay.disable();
    deploymentArrivals.length = 0;
  });
}

// A watch reader that is not the service, for the cluster benchmark's measured phase: the
// service's pod watch's scope (every namespace's pods, JSON, bookmarks, a timeoutSeconds in
// [300, 600) as the service's reflector asks) read by a process that does nothing else, its bytes
// dropped as they arrive, through the HTTP client the service uses (undici). Run as a process of
// its own (`node controlWatcher.ts KUBECONFIG FILE PROTOCOL`, startControlWatcher) so that no other
// work shares its event loop. When the API server ends one of its watches it opens the next from
// the last resourceVersion it saw. On SIGTERM it writes every watch's life to FILE in
// watches-on-signal.ts's shape (watchTimeline.ts), on CLOCK_MONOTONIC.
//
// PROTOCOL is `h2`, undici 8's default (one connection, a 256 KiB window per stream and 512 KiB
// for the connection), which the service spoke to the API server before connectionPool.ts turned
// it off, or `http/1.1` (a connection per watch, the kernel's socket buffers between the two ends),
// which it speaks now. If the cacher terminates these readers' watches as often as the service's,
// what closes them is the API server's own time (2 cores shared with etcd, the controllers, kwok, NATS and the benchmark), not
// the service's reading; if it terminates the service's and not theirs, the service reads too slowly.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Agent, request } from "undici";
import type { RecordedWatch, WatchRecording } from "./watchTimeline.ts";

export type ControlProtocol = "h2" | "http/1.1";

const PATH = "/api/v1/pods";
const RESOURCE_VERSION = Buffer.from('"resourceVersion":"');
const ERROR_EVENT = Buffer.from('"type":"ERROR"');

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  users: { user: { token: string } }[];
}

/** Starts the reader on the cluster of `kubeconfigPath`; `stop` ends it once it has written `file`. */
export function startControlWatcher(kubeconfigPath: string, file: string, protocol: ControlProtocol): { stop: () => Promise<void> } {
  const child = spawn(process.execPath, [...process.execArgv, new URL(import.meta.url).pathname, kubeconfigPath, file, protocol], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function read(kubeconfigPath: string, file: string, protocol: ControlProtocol): void {
  const config = JSON.parse(readFileSync(kubeconfigPath, "utf8")) as Kubeconfig;
  const server = config.clusters[0]!.cluster.server;
  const dispatcher = new Agent({
    allowH2: protocol === "h2",
    connect: { ca: Buffer.from(config.clusters[0]!.cluster["certificate-authority-data"], "base64").toString() },
  });
  const headers = { Authorization: `Bearer ${config.users[0]!.user.token}`, Accept: "application/json" };
  const now = () => Number(process.hrtime.bigint() / 1000n);
  const watches: RecordedWatch[] = [];

  /** The collection's resourceVersion now: a list of one pod (served from the watch cache). */
  const currentResourceVersion = async () => {
    const { body } = await request(`${server}${PATH}?limit=1`, { headers, dispatcher });
    return ((await body.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  };

  const watch = (resourceVersion: string) => {
    const timeoutSeconds = Math.floor(300 * (1 + Math.random()));
    const recorded: RecordedWatch = { path: PATH, resourceVersion, timeoutSeconds, sentUs: now() };
    watches.push(recorded);
    let lastSeen = resourceVersion;
    let sawError = false;
    let finished = false;
    /** The watch's end, whichever way it came (once): the next one is opened from what it saw. */
    const finish = (error?: string) => {
      if (finished) return;
      finished = true;
      recorded.endedUs = now();
      if (error !== undefined) recorded.error = error;
      if (sawError) void currentResourceVersion().then(watch, () => setTimeout(() => watch(lastSeen), 1000));
      else if (error !== undefined) setTimeout(() => watch(lastSeen), 1000);
      else watch(lastSeen);
    };
    const query = `watch=true&allowWatchBookmarks=true&timeoutSeconds=${timeoutSeconds}&resourceVersion=${resourceVersion}`;
    request(`${server}${PATH}?${query}`, { headers, dispatcher, bodyTimeout: 0 }).then(({ statusCode, body }) => {
      recorded.answeredUs = now();
      recorded.status = statusCode;
      body.on("data", (chunk: Buffer) => {
        // The chunk's last resourceVersion is where the next watch resumes; a chunk cut inside
        // one keeps the one before.
        const at = chunk.lastIndexOf(RESOURCE_VERSION);
        const end = at < 0 ? -1 : chunk.indexOf(0x22, at + RESOURCE_VERSION.length);
        if (end > 0) lastSeen = chunk.toString("latin1", at + RESOURCE_VERSION.length, end);
        if (chunk.includes(ERROR_EVENT)) sawError = true;
      });
      // An ERROR event (410 Gone: the resourceVersion is older than the cache keeps) or a refusal
      // (429 from API Priority and Fairness) ends the watch too; neither is a termination.
      body.on("end", () => finish(sawError ? "ERROR event" : statusCode === 200 ? undefined : `HTTP ${statusCode}`));
      body.on("error", (error) => finish(error.name));
    }, (error: Error) => finish(error.name));
  };

  process.on("SIGTERM", () => {
    writeFileSync(file, JSON.stringify({ watches, deploymentArrivals: [] } satisfies WatchRecording));
    process.exit(0);
  });
  currentResourceVersion().then(watch, (error: unknown) => {
    process.stderr.write(`control watcher: ${String(error)}\n`);
    process.exit(1);
  });
}

if (process.argv[1] === new URL(import.meta.url).pathname) read(process.argv[2]!, process.argv[3]!, process.argv[4] as ControlProtocol);

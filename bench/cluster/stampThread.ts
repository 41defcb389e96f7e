// The cluster benchmark's stamps, taken on a thread of their own: the decisive event of every
// Deployment (its watch, `watchDecisive`) and the arrival of every verdict (`subscribeVerdicts`).
// The main thread creates 1,000 Deployments, asks for their observations and scrapes metrics; its
// event loop stalled for up to 142 to 347 ms in the runs that measured it (2026-12-03), and a stamp
// taken late by such a stall moves a latency the service did not move. Here a stamp waits only
// behind other stamps. They travel as CLOCK_MONOTONIC microseconds (process.hrtime, one clock for
// every thread and process) and are turned back into the main thread's performance.now().
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { KubeConfig, type V1Deployment } from "@kubernetes/client-node";
import { connect } from "@nats-io/transport-node";
import { fromMonotonicUs, loopDelayOf, toMonotonicUs } from "./clocks.ts";
import { rolledOut, subscribeVerdicts, watchDecisive, type ReceivedVerdict } from "./scale.ts";

interface StampThreadData {
  role: "stamps";
  kubeconfigPath: string;
  natsUrl: string;
  prefix: string;
}

type ToStamps = { type: "watchDecisive"; labelSelector: string } | { type: "stop" };
type FromStamps =
  | { type: "ready" }
  | { type: "watching" }
  | { type: "decisive"; key: string; atUs: number; resourceVersion?: string }
  | { type: "verdict"; observationId: string; atUs: number; wallAtMs: number; streamCopyAtUs?: number; outcome: string; verdict: unknown }
  | { type: "stopped"; loopDelay: { p99Ms: number; maxMs: number } };

export interface StampThread {
  /** Every verdict, by observation id, on this thread's performance.now(). */
  readonly verdicts: Map<string, ReceivedVerdict>;
  /** The decisive event of every Deployment watched, by namespace/name, on this thread's performance.now(). */
  readonly decisive: Map<string, number>;
  /** The same events' resourceVersions, by namespace/name: what the service's receipt of each is found by (watchTimeline.ts). */
  readonly decisiveResourceVersions: Map<string, string>;
  /** Starts the watch of the Deployments labelled so; resolves once it is open. */
  watchDecisive(labelSelector: string): Promise<void>;
  /** Ends the watch and the subscriptions; resolves with the stamp thread's own event-loop delay. */
  stop(): Promise<{ p99Ms: number; maxMs: number }>;
}

export async function startStampThread(options: Omit<StampThreadData, "role">): Promise<StampThread> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: "stamps", ...options } satisfies StampThreadData });
  const verdicts = new Map<string, ReceivedVerdict>();
  const decisive = new Map<string, number>();
  const decisiveResourceVersions = new Map<string, string>();
  const waiting = new Map<FromStamps["type"], (message: FromStamps) => void>();
  const next = <K extends FromStamps["type"]>(type: K) => new Promise<Extract<FromStamps, { type: K }>>((resolve) => waiting.set(type, resolve as (message: FromStamps) => void));
  const failed = new Promise<never>((_, reject) => worker.once("error", reject));
  worker.on("message", (message: FromStamps) => {
    if (message.type === "decisive") {
      decisive.set(message.key, fromMonotonicUs(message.atUs));
      if (message.resourceVersion !== undefined) decisiveResourceVersions.set(message.key, message.resourceVersion);
    } else if (message.type === "verdict") {
      const { observationId, atUs, wallAtMs, streamCopyAtUs, outcome, verdict } = message;
      verdicts.set(observationId, { atMs: fromMonotonicUs(atUs), wallAtMs, ...(streamCopyAtUs !== undefined && { streamCopyAtMs: fromMonotonicUs(streamCopyAtUs) }), outcome, verdict });
    } else {
      const resolve = waiting.get(message.type);
      waiting.delete(message.type);
      resolve?.(message);
    }
  });
  await Promise.race([next("ready"), failed]);
  return {
    verdicts,
    decisive,
    decisiveResourceVersions,
    async watchDecisive(labelSelector) {
      const watching = next("watching");
      worker.postMessage({ type: "watchDecisive", labelSelector } satisfies ToStamps);
      await Promise.race([watching, failed]);
    },
    async stop() {
      const stopped = next("stopped");
      worker.postMessage({ type: "stop" } satisfies ToStamps);
      const { loopDelay } = await Promise.race([stopped, failed]);
      await worker.terminate();
      return loopDelay;
    },
  };
}

if (!isMainThread && (workerData as StampThreadData | undefined)?.role === "stamps") {
  const data = workerData as StampThreadData;
  const port = parentPort!;
  const post = (message: FromStamps) => port.postMessage(message);
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const nc = await connect({ servers: data.natsUrl });
  subscribeVerdicts(nc, data.prefix, (observationId, { atMs, wallAtMs, streamCopyAtMs, outcome, verdict }) =>
    post({ type: "verdict", observationId, atUs: toMonotonicUs(atMs), wallAtMs, ...(streamCopyAtMs !== undefined && { streamCopyAtUs: toMonotonicUs(streamCopyAtMs) }), outcome, verdict }),
  );
  await nc.flush();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(data.kubeconfigPath);
  let watch: { stop(): void } | undefined;
  port.on("message", (message: ToStamps) => {
    if (message.type === "watchDecisive") {
      void watchDecisive<V1Deployment>(kubeConfig, "/apis/apps/v1/deployments", message.labelSelector, rolledOut, undefined, (key, atMs, object) =>
        post({ type: "decisive", key, atUs: toMonotonicUs(atMs), ...(object.metadata?.resourceVersion !== undefined && { resourceVersion: object.metadata.resourceVersion }) }),
      ).then((opened) => {
        watch = opened;
        post({ type: "watching" });
      });
    } else {
      watch?.stop();
      loopDelay.disable();
      void nc.close().finally(() => post({ type: "stopped", loopDelay: loopDelayOf(loopDelay) }));
    }
  });
  post({ type: "ready" });
}

// The service's watches over the measured phase, as watches-on-signal.ts recorded them inside it:
// how often each collection's watch was opened again, how long it was blind meanwhile (from one
// watch's end to the next one's answer: events of that time reach the service only when the next
// watch replays them), and when the service received each Deployment resourceVersion, so that a
// slow verdict's time before the decision splits at the service's receipt of its decisive event.
import { readFileSync } from "node:fs";

export interface RecordedWatch {
  /** The collection's path, without the query: `/apis/apps/v1/deployments`, `/api/v1/namespaces/x/pods`. */
  path: string;
  /** Where the watch resumed (the query's resourceVersion). */
  resourceVersion: string;
  /** The query's timeoutSeconds: when the watch asked the server to end it. */
  timeoutSeconds?: number;
  /**
   * CLOCK_MONOTONIC microseconds: the request made, its headers written on a connected socket (after
   * the connection's TCP and TLS set-up), the answer's headers received, its body ended or failed.
   */
  sentUs: number;
  headersSentUs?: number;
  /** The connection's protocol as TLS negotiated it (ALPN): `h2`, or `http/1.1` when none was. */
  protocol?: string;
  answeredUs?: number;
  status?: number;
  endedUs?: number;
  error?: string;
  /** The recording process's longest event-loop delay since the previous watch end it recorded, read at this one's end. */
  loopDelayMaxMs?: number;
}

export interface WatchRecording {
  watches: RecordedWatch[];
  /** Each Deployment resourceVersion the service's watches received, and when (the first receipt counts). */
  deploymentArrivals: [rv: string, atUs: number][];
}

/** What watches-on-signal.ts wrote, or undefined when it wrote nothing (not loaded, no file). */
export function readWatchRecording(file: string): WatchRecording | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as WatchRecording;
  } catch {
    return undefined;
  }
}

/** A stretch in which a collection had no answered watch open, between two of the service's watches of it. */
export interface BlindStretch {
  path: string;
  fromUs: number;
  toUs: number;
  /** Of the stretch, the next watch's connection set-up: from its request to its headers written. */
  connectUs?: number;
}

/** Every blind stretch of every collection: from one watch's end to the answer of the one after it. */
export function blindStretches(watches: readonly RecordedWatch[]): BlindStretch[] {
  const byPath = Map.groupBy(watches, (watch) => watch.path);
  const stretches: BlindStretch[] = [];
  for (const [path, opened] of byPath) {
    opened.sort((a, b) => a.sentUs - b.sentUs);
    for (let i = 1; i < opened.length; i++) {
      const ended = opened[i - 1]!.endedUs;
      const { sentUs, headersSentUs, answeredUs } = opened[i]!;
      if (ended === undefined || answeredUs === undefined) continue;
      stretches.push({ path, fromUs: ended, toUs: answeredUs, ...(headersSentUs !== undefined && { connectUs: headersSentUs - sentUs }) });
    }
  }
  return stretches;
}

const resourceOf = (path: string): string => path.split("/").at(-1)!;

/**
 * How much sooner than its timeoutSeconds a watch the server ended may end and still count as
 * ended by its timeout. The server starts that timer once it serves the request, after the client
 * sent it, so a watch ended by it lives at least timeoutSeconds from `sentUs`; the second allows
 * for rounding. A watch the cacher terminates (k8s.io/apiserver `cacher/cache_watcher.go`: its
 * buffer stayed full past the dispatch budget) ends at any time, and looks the same to the client:
 * the chunked body ends cleanly, no ERROR event. Only the time tells them apart; a termination
 * inside the last second before the timeout (one chance in 300 at least) is counted as a timeout.
 */
export const TIMEOUT_MARGIN_US = 1_000_000;

/** A watch the server ended (not an error) well before the timeoutSeconds it asked for. */
export function endedEarly(watch: RecordedWatch): boolean {
  if (watch.endedUs === undefined || watch.error !== undefined || watch.status !== 200 || watch.timeoutSeconds === undefined) return false;
  return watch.endedUs - watch.sentUs < watch.timeoutSeconds * 1_000_000 - TIMEOUT_MARGIN_US;
}

export interface WatchSummary {
  opened: number;
  /** Ended by the server, at their timeout or early; `endedEarly` of them before their timeoutSeconds (endedEarly). */
  endedByServer: number;
  endedEarly: number;
  failed: number;
  blindMs: Spread;
  connectMs: Spread;
  /** For the watches ended early: the reader's longest event-loop delay before each end, where recorded. */
  loopDelayBeforeEarlyEndMs?: Spread;
  /** The protocols the watches were sent over, where recorded. */
  protocols?: string[];
}

/**
 * The phase's watches in short, by resource (the collections of every namespace together): watches
 * opened, those the server ended (and of them, those it ended before their timeout) and those that
 * failed, how long re-opened ones were blind, and how much of that went to setting up their connections.
 */
export function summarizeWatches(recording: Pick<WatchRecording, "watches">, fromUs: number, toUs: number): Record<string, WatchSummary> {
  const inPhase = (us: number | undefined) => us !== undefined && us >= fromUs && us <= toUs;
  const byResource: Record<string, WatchSummary> = {};
  const earlyLoopDelays = new Map<string, number[]>();
  const stretches = Map.groupBy(blindStretches(recording.watches).filter((stretch) => inPhase(stretch.toUs)), (stretch) => resourceOf(stretch.path));
  const blindMs = (resource: string) => (stretches.get(resource) ?? []).map((stretch) => (stretch.toUs - stretch.fromUs) / 1000);
  const connectMs = (resource: string) => (stretches.get(resource) ?? []).flatMap((stretch) => (stretch.connectUs === undefined ? [] : [stretch.connectUs / 1000]));
  for (const watch of recording.watches) {
    const resource = resourceOf(watch.path);
    const entry = (byResource[resource] ??= { opened: 0, endedByServer: 0, endedEarly: 0, failed: 0, blindMs: spread(blindMs(resource)), connectMs: spread(connectMs(resource)) });
    if (inPhase(watch.sentUs)) entry.opened += 1;
    if (watch.protocol !== undefined && !entry.protocols?.includes(watch.protocol)) entry.protocols = [...(entry.protocols ?? []), watch.protocol];
    if (!inPhase(watch.endedUs)) continue;
    entry[watch.error === undefined ? "endedByServer" : "failed"] += 1;
    if (!endedEarly(watch)) continue;
    entry.endedEarly += 1;
    if (watch.loopDelayMaxMs !== undefined) earlyLoopDelays.set(resource, [...(earlyLoopDelays.get(resource) ?? []), watch.loopDelayMaxMs]);
  }
  for (const [resource, delays] of earlyLoopDelays) byResource[resource]!.loopDelayBeforeEarlyEndMs = spread(delays);
  return byResource;
}

interface Spread {
  p50: number | null;
  max: number | null;
}

function spread(values: number[] = []): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (ms: number | undefined) => (ms === undefined ? null : Math.round(ms * 10) / 10);
  return { p50: round(sorted[Math.floor((sorted.length - 1) / 2)]), max: round(sorted.at(-1)) };
}

/** When the service first received each Deployment resourceVersion (CLOCK_MONOTONIC microseconds). */
export function deploymentReceipts(recording: WatchRecording): Map<string, number> {
  const receipts = new Map<string, number>();
  for (const [rv, atUs] of recording.deploymentArrivals) if (!receipts.has(rv)) receipts.set(rv, atUs);
  return receipts;
}

/**
 * For one slow verdict: when the service received its decisive event, after the benchmark's own
 * watch did (negative: before it), and the Deployment watches' blind time inside its window.
 */
export function receiptInWindow(
  receipts: ReadonlyMap<string, number>,
  stretches: readonly BlindStretch[],
  decisiveRv: string | undefined,
  fromUs: number,
  toUs: number,
): { serviceReceiptMs?: number; deploymentWatchBlindMs: number } {
  let blindUs = 0;
  for (const stretch of stretches) {
    if (!stretch.path.endsWith("/deployments")) continue;
    const overlap = Math.min(stretch.toUs, toUs) - Math.max(stretch.fromUs, fromUs);
    if (overlap > 0) blindUs += overlap;
  }
  const receivedUs = decisiveRv === undefined ? undefined : receipts.get(decisiveRv);
  return {
    ...(receivedUs !== undefined && { serviceReceiptMs: Math.round((receivedUs - fromUs) / 100) / 10 }),
    deploymentWatchBlindMs: Math.round(blindUs / 100) / 10,
  };
}

// The two watch phases of bench/scale-curve, served by the watch stand-in (server.ts) when its size
// carries `scale`. Both act on the pod and Deployment watches from resourceVersion 1, which stay
// open from the first phase to the end (a watch that ended would be re-opened at a later
// resourceVersion, which the stand-in answers with silence):
// - churn: `churnEvents` pod updates written as fast as the socket drains, each changing its pod
//   (restartCount up), the pods taken one per Deployment in turn (update j is Deployment
//   j mod deployments), so every Deployment's workload is judged again, not a few of them;
// - decisive: every Deployment's rollout completing (the event that decides its observation),
//   `decisivePerSecond` of them, while pod updates go on at `podsPerSecond`: each observation
//   decided on an event of its own, at a steady rate, not all in one burst. Lines are written on a
//   10 ms tick, each tick the lines due by then.
// - gone: the pod watch answered with 410 Gone (an ERROR event, then the end of the response), as
//   the API server does when the resourceVersion is older than it keeps; the relist that follows
//   is served every pod at a new resourceVersion (relistVersion), so each one is an event to the
//   informer: the heaviest relist, every object changed. The answer names the last pod listed,
//   which the informer applies last.
// The churn's lines are built when the server starts (so building them is not measured); the
// decisive phase's are built on each tick, a few at a time.
import type { ServerResponse } from "node:http";
import type { KubeObject } from "../../src/kube/objects.ts";
import { deployment as rolledOutDeployment } from "../../test/fixtures/kube/workloads.ts";
import { inNamespace, namespaceOf, type WatchCluster, type WatchClusterSize } from "./cluster.ts";

export interface ScalePhasesOptions {
  churnEvents: number;
}

const tickMs = 10;
/** The resourceVersion of every pod in the relist after `gone`: newer than any update written. */
const relistVersion = "3000000000";
/** Churn lines per Buffer: the socket is written a Buffer at a time, never one giant string. */
const linesPerBuffer = 1_000;

export class ScalePhases {
  private readonly watches = new Map<"pods" | "deployments", ServerResponse>();
  private readonly churn: Buffer[] = [];
  private readonly churnEvents: number;
  /** Pod updates made so far: update j's resourceVersion is 2 + j, so every update is newer. */
  private podUpdates = 0;
  private gone = false;

  constructor(
    private readonly cluster: WatchCluster,
    private readonly size: WatchClusterSize,
    options: ScalePhasesOptions,
  ) {
    this.churnEvents = options.churnEvents;
    for (let from = 0; from < options.churnEvents; from += linesPerBuffer) {
      const count = Math.min(linesPerBuffer, options.churnEvents - from);
      this.churn.push(Buffer.from(`${Array.from({ length: count }, () => this.nextPodLine()).join("\n")}\n`));
    }
  }

  /** The stand-in's pod or Deployment watch from resourceVersion 1: held open for the phases. */
  hold(path: string, response: ServerResponse): boolean {
    const which = path === "/api/v1/pods" ? "pods" : path === "/apis/apps/v1/deployments" ? "deployments" : undefined;
    if (!which) return false;
    this.watches.set(which, response);
    response.on("close", () => this.watches.get(which) === response && this.watches.delete(which));
    return true;
  }

  /** The resourceVersion lists of `path` are served at: 1, or relistVersion for pods once the pod watch is gone. */
  listVersion(path: string): string {
    return this.gone && path === "/api/v1/pods" ? relistVersion : "1";
  }

  /** `GET /scale?phase=churn`, `?phase=decisive&decisivePerSecond=N&podsPerSecond=M` or `?phase=gone`: answers once written. */
  async run(url: URL): Promise<Record<string, unknown>> {
    const pods = this.watches.get("pods");
    const deployments = this.watches.get("deployments");
    if (!pods || !deployments) throw new Error("the pod and Deployment watches are not open yet");
    const phase = url.searchParams.get("phase");
    if (phase === "churn") {
      for (const buffer of this.churn) if (!pods.write(buffer)) await new Promise((resolve) => pods.once("drain", resolve));
      return { podUpdates: this.churnEvents };
    }
    if (phase === "decisive") {
      const decisivePerSecond = Number(url.searchParams.get("decisivePerSecond"));
      const podsPerSecond = Number(url.searchParams.get("podsPerSecond"));
      return this.decisive(pods, deployments, decisivePerSecond, podsPerSecond);
    }
    if (phase === "gone") {
      this.gone = true;
      pods.end(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (${relistVersion})","reason":"Expired","code":410}}\n`);
      const last = JSON.parse(this.cluster.podJson.at(-1)!) as KubeObject;
      return { relistVersion, lastPod: { namespace: last.metadata.namespace, name: last.metadata.name } };
    }
    throw new Error(`unknown phase ${phase}`);
  }

  private async decisive(pods: ServerResponse, deployments: ServerResponse, decisivePerSecond: number, podsPerSecond: number) {
    const total = this.size.deployments;
    const start = performance.now();
    let decided = 0;
    let podsWritten = 0;
    // The stand-in's own lateness: a long gap between ticks writes a burst, not a steady rate.
    let longestTickGapMs = 0;
    let lastTick = start;
    while (decided < total) {
      await new Promise((resolve) => setTimeout(resolve, tickMs));
      const now = performance.now();
      longestTickGapMs = Math.max(longestTickGapMs, now - lastTick);
      lastTick = now;
      const elapsed = (now - start) / 1000;
      const decisiveDue = Math.min(total, Math.floor(elapsed * decisivePerSecond));
      const lines: string[] = [];
      for (; decided < decisiveDue; decided++) lines.push(this.decisiveLine(decided));
      if (lines.length > 0) deployments.write(`${lines.join("\n")}\n`);
      const podLines: string[] = [];
      for (const due = Math.floor(elapsed * podsPerSecond); podsWritten < due; podsWritten++) podLines.push(this.nextPodLine());
      if (podLines.length > 0) pods.write(`${podLines.join("\n")}\n`);
    }
    return { decisiveEvents: decided, podUpdates: podsWritten, seconds: (performance.now() - start) / 1000, longestTickGapMs: Math.round(longestTickGapMs) };
  }

  /** Pod update j: Deployment j mod deployments, its pods in turn, its container restarted once more each pass. */
  private nextPodLine(): string {
    const j = this.podUpdates++;
    const { deployments, podsPerDeployment } = this.size;
    const d = j % deployments;
    const p = Math.floor(j / deployments) % podsPerDeployment;
    const pass = Math.floor(j / (deployments * podsPerDeployment));
    const json = this.cluster.podJson[d * podsPerDeployment + p]!;
    const updated = json.replace('"resourceVersion":"1"', `"resourceVersion":"${2 + j}"`).replace('"restartCount":0', `"restartCount":${pass + 1}`);
    return `{"type":"MODIFIED","object":${updated}}`;
  }

  private decisiveLine(d: number): string {
    const object = inNamespace(rolledOutDeployment({ name: `app-${d}`, replicas: this.size.podsPerDeployment }) as KubeObject, namespaceOf(this.size, d));
    return `{"type":"MODIFIED","object":${JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: String(1e9 + d) } })}}`;
  }
}

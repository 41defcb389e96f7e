/**
 * Start-up against a JetStream that is not ready yet (issue 18): one node of a fresh 3-node
 * cluster has no meta leader until its peers join, so every JetStream API request times out or
 * is refused. The service waits and retries within --jetstream-wait: it starts once the peers
 * come, and past the bound it exits 3 with one line naming NATS, never exit 1 with a stack.
 */
import { Writable } from "node:stream";
import { KubeConfig } from "@kubernetes/client-node";
import { pino } from "pino";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildOrReuseBinaries } from "../cluster/binaries.ts";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { busNames, ensureEventStream, isStoreFull, openKvBucket } from "../../src/bus/index.js";
import { natsClusterNodes, startNatsServer, type NatsNode } from "../cluster/nats.ts";
import { scratchDir } from "../cluster/stagewatch.ts";
import { startService, type RunningService } from "../../src/service/service.ts";
import { runCli } from "../../src/cli/testing/runCli.ts";
import { kubeconfigPath } from "./support/cluster.ts";

let natsBinary: string;
let nodes: NatsNode[] = [];
let service: RunningService | undefined;
const starting: Promise<void>[] = [];

beforeAll(() => {
  natsBinary = buildOrReuseBinaries().natsServer;
}, 300_000);

afterEach(async () => {
  await service?.stop();
  service = undefined;
  await Promise.all(nodes.map((node) => node.stop()));
  // A lone node's start() waits for a leader that never comes; it ends when its process does.
  await Promise.allSettled(starting.splice(0));
  nodes = [];
}, 60_000);

/** Node 0 of a 3-node cluster, alone: it accepts connections, its JetStream has no leader. */
async function loneNode(): Promise<NatsNode> {
  nodes = await natsClusterNodes(natsBinary, scratchDir("nats-unready"), 3);
  starting.push(nodes[0]!.start().catch(() => undefined));
  // Before its client port is open a connection is refused, and the service would fail to
  // connect, not wait for JetStream: the case under test is a server that answers.
  await nodes[0]!.accepting();
  return nodes[0]!;
}

function collectingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter((line) => line !== ""));
      done();
    },
  });
  return { lines, logger: pino({ level: "warn", base: null }, stream) };
}

const randomPrefix = () => `startup${Math.random().toString(36).slice(2, 8)}`;

describe("serve on a JetStream still electing its leaders", () => {
  it("waits and retries, and starts once the cluster has its leader", async () => {
    const node = await loneNode();
    const { lines, logger } = collectingLogger();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath());
    const started = startService({ nats: { servers: [node.url], connectTimeoutMs: 5_000 }, kubeConfig, logger, metricsPort: 0, subjectPrefix: randomPrefix(), jetstreamWaitMs: 60_000 });
    // The service is retrying against the lone node before the peers start.
    const deadline = Date.now() + 20_000;
    while (!lines.some((line) => line.includes("JetStream not ready yet; retrying")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines.some((line) => line.includes("JetStream not ready yet; retrying"))).toBe(true);
    starting.push(nodes[1]!.start(), nodes[2]!.start());
    service = await started;
    expect(service.metricsUrl).toMatch(/^http:/);
  }, 90_000);

  it("past --jetstream-wait exits 3 with one line naming NATS, no stack", async () => {
    const node = await loneNode();
    const result = await runCli(["serve", "--jetstream-wait=3s", "--metrics-port=0", "--log-level=silent", `--subject-prefix=${randomPrefix()}`], {
      env: { NATS_URL: node.url, KUBECONFIG: kubeconfigPath() },
    });
    expect(result.status, result.stderr).toBe(3);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^stagewatch: NATS at ${node.url.replaceAll(".", "\\.")}: JetStream API: JetStream not ready after \\d+s: `));
    expect(result.stderr).not.toContain("    at ");
  }, 60_000);
});

describe("the stream and buckets on a server of their own", () => {
  it("are given their byte limits when created without them, and a full bucket's write is told apart", async () => {
    const node = await startNatsServer(natsBinary, scratchDir("nats-limits"));
    nodes = [node];
    const nc = await connect({ servers: node.url });
    try {
      const jsm = await jetstreamManager(nc);
      const names = busNames(randomPrefix());
      // What an older stagewatch created: no byte limits.
      await jsm.streams.add({ name: names.eventStream, subjects: [names.allEvents] });
      await new Kvm(jetstream(nc)).create(names.recordsBucket, { history: 1 });
      await ensureEventStream(jsm, names, { maxBytes: 8 * 1024 * 1024, maxMessageBytes: 64 * 1024 });
      const kv = await openKvBucket(jetstream(nc), names.recordsBucket, { maxBytes: 16 * 1024, maxValueBytes: 4 * 1024 });
      expect((await jsm.streams.info(names.eventStream)).config).toMatchObject({ max_bytes: 8 * 1024 * 1024, max_msg_size: 64 * 1024, max_msgs_per_subject: 10_000, discard: "old" });
      expect((await jsm.streams.info(`KV_${names.recordsBucket}`)).config).toMatchObject({ max_bytes: 16 * 1024, max_msg_size: 4 * 1024 });

      let full: unknown;
      for (let i = 0; i < 100 && full === undefined; i++) await kv.put(`observations.o-${i}`, "x".repeat(1024)).catch((error: unknown) => (full = error));
      expect(isStoreFull(full)).toBe(true);
    } finally {
      await nc.close();
    }
  }, 60_000);
});

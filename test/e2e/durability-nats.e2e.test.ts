/**
 * NATS faults under a running `stagewatch serve`: the server restarted mid-observation (events
 * wait, the verdict decided during the outage is stored and published when it returns, /readyz
 * says so meanwhile), and a 3-node JetStream cluster with replicated stream and buckets losing
 * one node mid-observation. The NATS servers are the tests' own (same binary as the shared one).
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectObserver, type Observer } from "../../src/bus/index.js";
import { buildOrReuseBinaries } from "../cluster/binaries.ts";
import { startNatsCluster, startNatsServer, type NatsCluster, type NatsNode } from "../cluster/nats.ts";
import { http } from "../cluster/probes.ts";
import { scratchDir } from "../cluster/stagewatch.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { ServeFleet, streamEvents, verdictsById } from "./support/replicas.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const kc = kubeConfig();
let natsBinary: string;
let namespace: string;
let fleet: ServeFleet | undefined;
let observer: Observer | undefined;
let nats: NatsNode | undefined;
let cluster: NatsCluster | undefined;

beforeAll(async () => {
  natsBinary = buildOrReuseBinaries().natsServer;
  namespace = await createNamespace("durability-nats");
}, 300_000);

afterEach(async () => {
  await observer?.close();
  await fleet?.stopAll();
  await nats?.stop();
  await cluster?.stop();
  observer = fleet = nats = cluster = undefined;
});

afterAll(async () => {
  await deleteNamespace(namespace);
});

const readyz = async (url: string) => (await http(`${url}/readyz`).catch(() => ({ status: 0 }))).status;

describe("nats-server restarted mid-observation", () => {
  it("never crashes serve: /readyz goes false and back, and the verdict decided during the outage arrives once", async () => {
    nats = await startNatsServer(natsBinary, scratchDir("nats-outage"));
    fleet = new ServeFleet({ kubeconfigPath: kubeconfigPath(), natsUrl: nats.url });
    const serve = await fleet.start("outage");
    observer = await connectObserver({ servers: nats.url, prefix: fleet.prefix });
    await apply(kc, deployment({ namespace, name: "api-outage", fault: Fault.NeverReady }).manifest);
    const run = await observer.observe(
      observeRequest({ deployment: "outage", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace, name: "api-outage" }] }),
    );
    await eventually("a reading", async () => ((await observer!.get(run.observationId))?.resources[0]?.state === "pending" ? true : undefined));

    await nats.stop();
    await eventually("/readyz not ready", async () => ((await readyz(serve.service.url)) === 503 ? true : undefined));
    // Decided while NATS is away: the rollout completes now.
    await apply(kc, deployment({ namespace, name: "api-outage" }).manifest);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(serve.service.process.exited()).toBe(false);

    await nats.start();
    await eventually("/readyz ready again", async () => ((await readyz(serve.service.url)) === 200 ? true : undefined));
    const decided = await eventually("the verdict", async () => {
      const verdict = await observer!.get(run.observationId).catch(() => undefined);
      return verdict?.outcome === "in_progress" ? undefined : verdict;
    });
    expect(decided).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    const verdicts = await eventually("the verdict event", async () => verdictsById(await streamEvents(nats!.url, fleet!.names)).get(run.observationId));
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ outcome: "succeeded" });
    expect(serve.service.process.exited()).toBe(false);
  });
});

describe("a 3-node JetStream cluster", () => {
  it("holds the stream and buckets in 3 replicas and loses nothing when a node is killed mid-observation", async () => {
    cluster = await startNatsCluster(natsBinary, scratchDir("nats-cluster"));
    fleet = new ServeFleet({ kubeconfigPath: kubeconfigPath(), natsUrl: cluster.urls, args: ["--jetstream-replicas=3"] });
    await fleet.start("clustered");
    observer = await connectObserver({ servers: cluster.urls.split(","), prefix: fleet.prefix });
    const nc = await connect({ servers: cluster.urls.split(",") });
    const jsm = await jetstreamManager(nc);
    for (const stream of [fleet.names.eventStream, `KV_${fleet.names.recordsBucket}`, `KV_${fleet.names.leasesBucket}`]) {
      expect((await jsm.streams.info(stream)).config.num_replicas, stream).toBe(3);
    }
    await nc.close();

    await apply(kc, deployment({ namespace, name: "api-cluster", fault: Fault.NeverReady }).manifest);
    const run = await observer.observe(
      observeRequest({ deployment: "clustered", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace, name: "api-cluster" }] }),
    );
    await eventually("a reading", async () => ((await observer!.get(run.observationId))?.resources[0]?.state === "pending" ? true : undefined));
    await cluster.nodes[0]!.stop("SIGKILL");
    await apply(kc, deployment({ namespace, name: "api-cluster" }).manifest);

    const verdict = await eventually("the verdict", async () => {
      const current = await observer!.get(run.observationId).catch(() => undefined);
      return current?.outcome === "in_progress" ? undefined : current;
    });
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    const survivors = cluster.nodes.slice(1).map((node) => node.url).join(",");
    const verdicts = await eventually("the verdict event", async () => verdictsById(await streamEvents(survivors, fleet!.names)).get(run.observationId));
    expect(verdicts).toHaveLength(1);
  });
});

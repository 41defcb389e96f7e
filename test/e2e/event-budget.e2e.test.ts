/**
 * One tenant cannot evict another's events (issue 32, finding 3's second half;
 * docs/operator/limits.md).
 * The event stream discards its oldest events when full, whoever wrote the newest: with one stream
 * for every tenant, TEAM_B writing fast evicted TEAM_A's earlier verdict, which an adopting replica
 * (hasVerdict) and any reader of the stream look for there. With a tenants file each tenant has a
 * stream of its own (src/bus/stores/eventStream.ts), so TEAM_B's flood evicts only TEAM_B's oldest.
 *
 * First on the e2e nats-server with the real publisher and stream set-up, small streams (256 KiB)
 * so that a flood of realistic events fills them in a second: the layout before (one stream) and
 * the one now, the same flood against both. Then the compiled `serve --tenants --signing-key` on
 * the documented account layout (deploy/nats/accounts.conf, a max_payload of 64 KB so that the
 * streams may be small): TEAM_B observing its Deployment over and over until its stream evicts its
 * own oldest events, and TEAM_A's verdict from before still in TEAM_A's stream.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jetstream, jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames, connectObserver, createEventPublisher, ensureEventStream, ObserverQuotaError, type BusNames, type EventPublisher, type Observer } from "../../src/bus/index.ts";
import { checkEvent, serviceSigner } from "../../src/signing/index.ts";
import { newKey } from "../../src/signing/testing/keys.ts";
import type { ObservationEvent, ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { failedVerdict } from "../fixtures/verdicts.ts";
import { buildOrReuseBinaries } from "../cluster/binaries.ts";
import { startNatsWithAccounts, type NatsNode } from "../cluster/nats.ts";
import { REPO_ROOT, scratchDir, startServe, type RunningService } from "../cluster/stagewatch.ts";
import { removeBus } from "./support/bus.ts";
import { compiledStagewatch, output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const KiB = 1024;
const streamBytes = 256 * KiB;

/** A stream's messages on `filter`, by subject (the server counts them). */
async function countsOn(jsm: JetStreamManager, stream: string, filter: string): Promise<number> {
  const info = await jsm.streams.info(stream, { subjects_filter: filter });
  return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
}

describe("TEAM_B flooding, on the e2e nats-server with the real publisher", () => {
  const signer = serviceSigner(newKey);
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const prefixes: string[] = [];

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl().split(",") });
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    await nc?.close();
    for (const prefix of prefixes) await removeBus(natsUrl(), prefix);
  });

  const namesFor = (theme: string): BusNames => {
    const prefix = `e2e-budget-${theme}-${randomBytes(3).toString("hex")}`;
    prefixes.push(prefix);
    return busNames(prefix);
  };

  const publisherFor = (names: BusNames) => createEventPublisher({ js: jetstream(nc), jsm, prefix: names.prefix, signer });

  const verdictOf = (observationId: string, deployment: string, tenant: string, outcome: "succeeded" | "failed"): ObservationVerdict => {
    const { failure, ...decided } = failedVerdict;
    const settled = { ...decided, reached: "healthy" as const, resources: decided.resources.map((resource) => ({ identity: resource.identity, state: "settled" as const })) };
    return signer.sign({ ...(outcome === "failed" ? { ...decided, failure } : settled), observationId, deployment, tenant, outcome });
  };

  /** TEAM_A's observation of `payments`, decided before the flood: four events, its verdict last. */
  async function teamAObservation(publisher: EventPublisher): Promise<{ observationId: string; published: number }> {
    const observationId = `a-${randomBytes(8).toString("hex")}`;
    const envelope = { observationId, deployment: "payments", tenant: "TEAM_A" };
    const api = failedVerdict.resources[0]!.identity;
    const events: ObservationEvent[] = [
      { ...envelope, type: "progress", at: "2026-12-01T10:00:01Z", resource: { identity: api, state: "pending", reason: "Progressing", message: "1/2 replicas ready" } },
      { ...envelope, type: "stage", at: "2026-12-01T10:00:02Z", stage: "applied" },
      { ...envelope, type: "stage", at: "2026-12-01T10:00:09Z", stage: "healthy" },
      { ...envelope, type: "verdict", at: "2026-12-01T10:00:09Z", verdict: verdictOf(observationId, "payments", "TEAM_A", "succeeded") },
    ];
    const outcomes = await Promise.all(events.map((event) => publisher.publish(event)));
    expect(outcomes.every((outcome) => outcome.published)).toBe(true);
    return { observationId, published: events.length };
  }

  /**
   * TEAM_B's flood: 100 observations of a custom resource whose status changes on every write,
   * each a stage, ten progress events carrying 1 KiB messages (what the engine leaves of the
   * issue's 900 KiB texts) and its verdict: about 1.6 MB, six times a 256 KiB stream.
   */
  async function teamBFlood(publisher: EventPublisher): Promise<{ observations: number; events: number; bytes: number }> {
    const widget = { apiVersion: "example.com/v1", kind: "Widget", namespace: "team-b", name: "w" };
    let events = 0;
    let bytes = 0;
    for (let batch = 0; batch < 10; batch++) {
      const published = Array.from({ length: 10 }, (_, i) => {
        const observationId = `b-${batch}-${i}-${randomBytes(6).toString("hex")}`;
        const envelope = { observationId, deployment: `widgets-${i}`, tenant: "TEAM_B" };
        const flood: ObservationEvent[] = [
          { ...envelope, type: "stage", at: "2026-12-01T10:01:00Z", stage: "applied" },
          ...Array.from({ length: 10 }, (__, step): ObservationEvent => ({
            ...envelope,
            type: "progress",
            at: `2026-12-01T10:01:${String(step + 1).padStart(2, "0")}Z`,
            resource: { identity: widget, state: "pending", reason: `Step${step}`, message: `${randomBytes(512).toString("hex")}` },
          })),
          { ...envelope, type: "verdict", at: "2026-12-01T10:01:30Z", verdict: verdictOf(observationId, `widgets-${i}`, "TEAM_B", "failed") },
        ];
        events += flood.length;
        bytes += flood.reduce((sum, event) => sum + Buffer.byteLength(JSON.stringify(signer.sign(event))), 0);
        return flood.map((event) => publisher.publish(event));
      });
      const outcomes = await Promise.all(published.flat());
      expect(outcomes.every((outcome) => outcome.published)).toBe(true);
    }
    return { observations: 100, events, bytes };
  }

  it("one stream for every tenant (the layout before tenants' streams): TEAM_A's earlier verdict is evicted", async () => {
    const names = namesFor("one");
    await ensureEventStream(jsm, names, { maxBytes: streamBytes, maxMessageBytes: 64 * KiB });
    const publisher = publisherFor(names);
    const teamA = await teamAObservation(publisher);
    expect(await publisher.hasVerdict("payments", teamA.observationId, "TEAM_A")).toBe(true);

    const flood = await teamBFlood(publisher);
    expect(flood.bytes).toBeGreaterThan(4 * streamBytes);
    const left = await countsOn(jsm, names.eventStream, names.tenantEvents("TEAM_A"));
    console.info(`one stream: TEAM_B wrote ${flood.events} events (${Math.round(flood.bytes / KiB)} KiB); TEAM_A lost ${teamA.published - left} of ${teamA.published}`);
    expect(left).toBe(0);
    // What an adopting replica concluded: no verdict out, so publish it again.
    expect(await publisher.hasVerdict("payments", teamA.observationId, "TEAM_A")).toBe(false);
  });

  it("a stream per tenant: TEAM_A's events stay, verdict included; TEAM_B's flood evicts TEAM_B's oldest only", async () => {
    const names = namesFor("per-tenant");
    const layout = await ensureEventStream(jsm, names, { maxBytes: 3 * streamBytes, maxMessageBytes: 64 * KiB, tenants: ["TEAM_A", "TEAM_B"] });
    expect(layout.streams.map((s) => [s.name, s.maxBytes])).toEqual([
      [names.eventStream, streamBytes],
      [names.tenantEventStream("TEAM_A"), streamBytes],
      [names.tenantEventStream("TEAM_B"), streamBytes],
    ]);
    const publisher = publisherFor(names);
    const teamA = await teamAObservation(publisher);

    const flood = await teamBFlood(publisher);
    expect(flood.bytes).toBeGreaterThan(4 * streamBytes);
    const left = await countsOn(jsm, names.tenantEventStream("TEAM_A"), names.tenantEvents("TEAM_A"));
    const teamB = (await jsm.streams.info(names.tenantEventStream("TEAM_B"))).state;
    console.info(`a stream per tenant: TEAM_B wrote ${flood.events} events (${Math.round(flood.bytes / KiB)} KiB), its stream kept ${teamB.messages} (${Math.round(teamB.bytes / KiB)} KiB); TEAM_A lost ${teamA.published - left} of ${teamA.published}`);
    expect(left).toBe(teamA.published);
    expect(await publisher.hasVerdict("payments", teamA.observationId, "TEAM_A")).toBe(true);
    const stored = await jsm.streams.getMessage(names.tenantEventStream("TEAM_A"), { last_by_subj: names.eventSubject("payments", teamA.observationId, "TEAM_A") });
    expect(checkEvent(stored!.json(), [newKey.verifyKey], { observationId: teamA.observationId }).trusted).toBe(true);
    // The flood was enough to evict: TEAM_B's own first events are gone, its stream at its share.
    expect(teamB.first_seq).toBeGreaterThan(1);
    expect(teamB.messages).toBeLessThan(flood.events);
    expect(teamB.bytes).toBeLessThanOrEqual(streamBytes);
    expect((await jsm.streams.info(names.eventStream)).state.messages).toBe(0);
  });
});

describe("the service on the documented account layout", () => {
  const password = () => randomBytes(12).toString("hex");
  const users = {
    STAGEWATCH: { user: "stagewatch", pass: password() },
    TEAM_A: { user: "team-a", pass: password() },
    TEAM_B: { user: "team-b", pass: password() },
    PLATFORM: { user: "platform", pass: password() },
  } as const;
  const names = busNames("stagewatch");
  const kc = kubeConfig();
  let nats: NatsNode | undefined;
  let service: RunningService | undefined;
  let publicKey: string;
  const observers: Observer[] = [];
  const namespaces: string[] = [];
  let admin: NatsConnection | undefined;

  beforeAll(async () => {
    const dir = scratchDir("event-budget");
    // The shipped layout, with a max_payload of 64 KB (the setting that comes last wins): streams
    // of 256 KiB each still hold four whole events, and a hundred observations fill one.
    const accounts = join(dir, "accounts-64k.conf");
    writeFileSync(accounts, `${readFileSync(join(REPO_ROOT, "deploy", "nats", "accounts.conf"), "utf8")}\nmax_payload: 64KB\n`);
    nats = await startNatsWithAccounts(buildOrReuseBinaries().natsServer, join(dir, "nats"), accounts, {
      STAGEWATCH_NATS_PASSWORD: users.STAGEWATCH.pass,
      TEAM_A_NATS_PASSWORD: users.TEAM_A.pass,
      TEAM_B_NATS_PASSWORD: users.TEAM_B.pass,
      PLATFORM_NATS_PASSWORD: users.PLATFORM.pass,
    });
    const key = await runStagewatch(["keys", "create", join(dir, "signing.nk")], { cwd: dir, env: {} });
    expect(key.status, output(key)).toBe(0);
    publicKey = key.stdout.trim();
    namespaces.push(...(await Promise.all([createNamespace("team-a"), createNamespace("team-b")])));
    service = await startServe(compiledStagewatch().cli, {
      kubeconfigPath: kubeconfigPath(),
      natsUrl: nats.url,
      dir,
      // Three tenants and the tenantless events: four streams of 256 KiB.
      args: [`--tenants=${join(REPO_ROOT, "deploy", "nats", "tenants.yaml")}`, `--signing-key=${join(dir, "signing.nk")}`, "--event-stream-max-bytes=1MiB"],
      env: { NATS_USER: users.STAGEWATCH.user, NATS_PASSWORD: users.STAGEWATCH.pass },
    });
    admin = await connect({ servers: nats.url, user: users.STAGEWATCH.user, pass: users.STAGEWATCH.pass });
  }, 300_000);

  afterAll(async () => {
    await Promise.all(observers.map((observer) => observer.close()));
    await admin?.close();
    await service?.process.stop();
    await nats?.stop();
    await Promise.all(namespaces.map(deleteNamespace));
  });

  const observerAs = async (account: "TEAM_A" | "TEAM_B") => {
    const observer = await connectObserver({ servers: nats!.url, user: users[account].user, password: users[account].pass, prefix: "stagewatch", verifyKey: publicKey });
    observers.push(observer);
    return observer;
  };

  it("TEAM_B observing its Deployment until its stream evicts its own oldest events leaves TEAM_A's earlier verdict in TEAM_A's stream", async () => {
    const jsm = await jetstreamManager(admin!);
    const streams = await Promise.all(["TEAM_A", "TEAM_B", "PLATFORM"].map((tenant) => jsm.streams.info(names.tenantEventStream(tenant))));
    expect(streams.map((s) => [s.config.subjects, s.config.max_bytes])).toEqual([
      [[names.tenantEventSubjects("TEAM_A")], streamBytes],
      [[names.tenantEventSubjects("TEAM_B")], streamBytes],
      [[names.tenantEventSubjects("PLATFORM")], streamBytes],
    ]);
    expect((await jsm.streams.info(names.eventStream)).config).toMatchObject({ subjects: [names.tenantlessEvents], max_bytes: streamBytes });

    const [namespaceA, namespaceB] = namespaces as [string, string];
    const api = deployment({ namespace: namespaceA, name: "api" });
    const widgets = deployment({ namespace: namespaceB, name: "widgets" });
    await apply(kc, api.manifest, widgets.manifest);
    const teamA = await observerAs("TEAM_A");
    const runA = await teamA.observe(observeRequest({ deployment: "api", resources: [api.identity] }));
    expect(await runA.verdict).toMatchObject({ outcome: "succeeded", tenant: "TEAM_A" });
    const subjectA = names.eventSubject("api", runA.observationId, "TEAM_A");
    // The client may read the verdict before the publisher's buffer has stored its event in the
    // stream (a CI run counted 4, then 5): count once the stream's last event is the verdict.
    await eventually("TEAM_A's verdict event stored in TEAM_A's stream", async () => {
      const stored = await jsm.streams.getMessage(names.tenantEventStream("TEAM_A"), { last_by_subj: subjectA });
      return stored?.json<ObservationEvent>().type === "verdict" ? true : undefined;
    });
    const eventsA = await countsOn(jsm, names.tenantEventStream("TEAM_A"), subjectA);
    expect(eventsA).toBeGreaterThan(1);

    // TEAM_B within its quota (10 requests a second): observations of an app already healthy,
    // each a few signed events, until its stream has dropped its first.
    const teamB = await observerAs("TEAM_B");
    let observed = 0;
    const streamB = () => jsm.streams.info(names.tenantEventStream("TEAM_B")).then((info) => info.state);
    while ((await streamB()).first_seq <= 1 && observed < 600) {
      const batch = await Promise.all(
        Array.from({ length: 8 }, () =>
          teamB.observe(observeRequest({ deployment: "widgets", resources: [widgets.identity] })).then(
            (run) => run.verdict,
            (error: unknown) => (error instanceof ObserverQuotaError ? undefined : Promise.reject(error)),
          ),
        ),
      );
      observed += batch.filter((verdict) => verdict !== undefined).length;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const stateB = await streamB();
    console.info(`service: TEAM_B observed ${observed} times; its stream dropped its first ${stateB.first_seq - 1} events and holds ${stateB.messages} (${Math.round(stateB.bytes / KiB)} KiB); TEAM_A's observation: ${eventsA} events before, ${await countsOn(jsm, names.tenantEventStream("TEAM_A"), subjectA)} after`);
    expect(stateB.first_seq).toBeGreaterThan(1);
    expect(stateB.bytes).toBeLessThanOrEqual(streamBytes);

    expect(await countsOn(jsm, names.tenantEventStream("TEAM_A"), subjectA)).toBe(eventsA);
    const last = await jsm.streams.getMessage(names.tenantEventStream("TEAM_A"), { last_by_subj: subjectA });
    const verdictEvent = last!.json<ObservationEvent>();
    expect(verdictEvent).toMatchObject({ type: "verdict", tenant: "TEAM_A", verdict: { outcome: "succeeded" } });
    expect(verdictEvent.signature?.key).toBe(publicKey);
    // Nothing of a tenant went to the tenantless stream.
    expect((await jsm.streams.info(names.eventStream)).state.messages).toBe(0);

    // The per-deployment series carry the tenant.
    const metrics = await (await fetch(`${service!.url}/metrics`)).text();
    const healthyCount = (deploymentName: string, tenant: string) =>
      metrics
        .split("\n")
        .filter((line) => line.startsWith("stagewatch_stage_reached_seconds_count{") && [`stage="healthy"`, `deployment="${deploymentName}"`, `tenant="${tenant}"`].every((label) => line.includes(label)))
        .map((line) => Number(line.split(" ").at(-1)));
    expect(healthyCount("api", "TEAM_A")).toEqual([1]);
    expect(healthyCount("widgets", "TEAM_B")).toEqual([observed]);
    expect(healthyCount("api", "TEAM_B")).toEqual([]);
  }, 300_000);
});

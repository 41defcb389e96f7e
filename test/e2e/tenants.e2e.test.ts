/**
 * Callers and tenants end to end (issue 17, docs/operator/tenants-and-trust.md): a nats-server of
 * this file's own with the shipped account layout (deploy/nats/accounts.conf: STAGEWATCH holding
 * the service, TEAM_A, TEAM_B, the admin PLATFORM), the compiled `stagewatch serve` in STAGEWATCH
 * with the shipped tenants file (deploy/nats/tenants.yaml) and a signing key, against the e2e
 * cluster. Each team is a client of its own account, as its CI jobs would be, and tries what the
 * issue lists: another team's namespace, cluster-scoped kinds and log tails; another team's
 * observation by id; the service's stream, buckets and queue group; the same key as another team; a
 * Nats-Request-Info header of its own making. Then a `serve --tenants` on the shared,
 * single-account server takes a request whose header a same-account client wrote.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, headers, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames, ObservationConflictError, ObservationRejectedError, type Observer } from "../../src/bus/index.ts";
import type { InProgressItem } from "../../src/verdicts/contract/schemas.ts";
import { scratchDir } from "../cluster/stagewatch.ts";
import { accountsFile, tenantsFile, useAccountLayout, violations, type Account, type AccountLayout } from "./support/accountLayout.ts";
import { output } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { useServes } from "./support/serve.ts";
import { apply, collect, observeRequest } from "./support/stagewatch.ts";

const execFileAsync = promisify(execFile);
const names = busNames("stagewatch");
const kc = kubeConfig();
const layout = useAccountLayout();

let started: AccountLayout;
let dir: string;
let publicKey: string;
let namespaceA: string;
let namespaceB: string;
const connections: NatsConnection[] = [];

const observerOf = (account: Account): Promise<Observer> => started.observer(account);
const connectionOf = (account: Account): Promise<NatsConnection> => started.connection(account);
const cliAs = (account: Account, args: string[]) => started.cli(account, args);

beforeAll(async () => {
  // The shipped tenants file's patterns: team-a-* and team-b-*.
  [namespaceA, namespaceB] = await Promise.all([createNamespace("team-a"), createNamespace("team-b")]);
  started = await layout.start({ name: "tenants", serveArgs: ["--container-logs"] });
  ({ dir, publicKey } = started);
}, 300_000);

afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await Promise.all([namespaceA, namespaceB].filter(Boolean).map(deleteNamespace));
});

describe("what a tenant may observe", () => {
  it("TEAM_A observes a Deployment in its namespace through its account alone: the verdict is the service's, followed without the stream", async () => {
    const api = deployment({ namespace: namespaceA, name: "api" });
    await apply(kc, api.manifest);
    const teamA = await observerOf("TEAM_A");
    const run = await teamA.observe(observeRequest({ deployment: "api", resources: [api.identity] }));
    const { events, verdict } = await collect(run);
    expect(verdict).toMatchObject({ observationId: run.observationId, outcome: "succeeded", tenant: "TEAM_A", signature: { key: publicKey } });
    expect(events.at(-1)).toMatchObject({ type: "verdict", tenant: "TEAM_A" });
    expect(teamA.rejected).toBe(0);
    // The CLI, as TEAM_A's CI job runs it, the same way.
    const manifests = join(dir, "api.json");
    writeFileSync(manifests, JSON.stringify(api.manifest));
    const cli = await cliAs("TEAM_A", ["observe", "-f", manifests, "--deployment", "api", "--timeout", "2m", "--json"]);
    expect(cli.status, output(cli)).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ outcome: "succeeded", tenant: "TEAM_A", verified: true });
  });

  it("TEAM_B observing in TEAM_A's namespace, a cluster-scoped kind, or with log tails: forbidden, naming each", async () => {
    const teamB = await observerOf("TEAM_B");
    const refusal = (request: Parameters<Observer["observe"]>[0]) => teamB.observe(request).then(() => undefined, (error: unknown) => error);

    const other = await refusal(observeRequest({ deployment: "api", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceA, name: "api" }] }));
    expect(other).toBeInstanceOf(ObservationRejectedError);
    expect(other).toMatchObject({ code: "forbidden", issues: [{ path: "resources[0].namespace", message: expect.stringContaining(`Deployment ${namespaceA}/api: namespace ${namespaceA} is not one of tenant TEAM_B's`) }] });

    const clusterScoped = await refusal(observeRequest({ deployment: "ns", resources: [{ apiVersion: "v1", kind: "Namespace", name: namespaceB }] }));
    expect(clusterScoped).toMatchObject({ code: "forbidden", issues: [{ path: "resources[0]", message: `Namespace ${namespaceB}: tenant TEAM_B may not name cluster-scoped kinds` }] });

    // The default namespace counts as the namespace it resolves to.
    const byDefault = await refusal(observeRequest({ deployment: "api", defaultNamespace: namespaceA, resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api" }] }));
    expect(byDefault).toMatchObject({ code: "forbidden", issues: [{ path: "resources[0].namespace" }] });

    const logs = await refusal(observeRequest({ deployment: "api", logs: true, resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceB, name: "api" }] }));
    expect(logs).toMatchObject({ code: "forbidden", issues: [{ path: "logs", message: "tenant TEAM_B may not ask for log tails" }] });

    // TEAM_A may ask for log tails, in its namespaces only.
    const teamA = await observerOf("TEAM_A");
    const tailsElsewhere = await teamA
      .observe(observeRequest({ deployment: "api", logs: true, resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceB, name: "api" }] }))
      .then(() => undefined, (error: unknown) => error);
    expect(tailsElsewhere).toMatchObject({ code: "forbidden", issues: [{ path: "resources[0].namespace" }] });

    const cli = await cliAs("TEAM_B", ["observe", "-f", join(dir, "api.json"), "--deployment", "api", "--timeout", "1m"]);
    expect(cli.status, output(cli)).toBe(2);
    expect(cli.stderr).toContain(`request rejected (forbidden): resources[0].namespace: Deployment ${namespaceA}/api`);
  });
});

describe("another tenant's observation", () => {
  let observationId: string;

  beforeAll(async () => {
    const slow = deployment({ namespace: namespaceA, name: "slow", fault: Fault.NeverReady });
    await apply(kc, slow.manifest);
    const run = await (await observerOf("TEAM_A")).observe(observeRequest({ deployment: "slow", resources: [slow.identity], timeoutSeconds: 600 }));
    observationId = run.observationId;
  });

  it("TEAM_B's get, cancel and list of TEAM_A's observation: not found, and TEAM_A's observation goes on", async () => {
    const teamB = await observerOf("TEAM_B");
    expect(await teamB.get(observationId)).toBeUndefined();
    expect(await teamB.cancel(observationId, "not yours")).toBeUndefined();
    expect((await teamB.list()).items.map((item) => item.observationId)).not.toContain(observationId);
    const got = await cliAs("TEAM_B", ["get", observationId]);
    expect(got.status, output(got)).toBe(2);
    expect(got.stderr).toContain(`no observation ${observationId}`);
    const cancelled = await cliAs("TEAM_B", ["cancel", observationId]);
    expect(cancelled.status, output(cancelled)).toBe(2);

    const teamA = await observerOf("TEAM_A");
    expect(await teamA.get(observationId)).toMatchObject({ outcome: "in_progress", tenant: "TEAM_A" });
    const listed = await cliAs("TEAM_A", ["list", "-o", "json"]);
    expect(listed.status, output(listed)).toBe(0);
    expect((JSON.parse(listed.stdout) as { items: InProgressItem[] }).items).toEqual(
      expect.arrayContaining([expect.objectContaining({ observationId, tenant: "TEAM_A", deployment: "slow" })]),
    );
  });

  it("the admin account sees and cancels it", async () => {
    const platform = await observerOf("PLATFORM");
    expect((await platform.list({ deployment: "slow" })).items.map((item) => item.observationId)).toContain(observationId);
    expect(await platform.cancel(observationId, "admin")).toMatchObject({ outcome: "cancelled", tenant: "TEAM_A" });
    expect(await (await observerOf("TEAM_A")).get(observationId)).toMatchObject({ outcome: "cancelled" });
  });
});

describe("what the NATS server refuses a team", () => {
  it("TEAM_A publishing on the events subjects, reading the stream or the buckets, taking requests: refused", async () => {
    const nc = await connectionOf("TEAM_A");
    const seen = violations(nc);
    nc.publish(names.eventSubject("api", "forged", "TEAM_A"), "{}");
    nc.publish(names.eventSubject("api", "forged", "TEAM_B"), "{}");
    const taken: string[] = [];
    // A refused subscription ends with the server's error; a message would be a request taken.
    nc.subscribe(names.observe, { queue: "stagewatch", callback: (error, message) => void (error === null && taken.push(message.subject)) });
    await nc.flush();
    await eventually("the server's refusals", async () => (seen.length >= 3 ? seen : undefined));
    expect(seen.join("\n")).toMatch(/Permissions Violation for Publish to "stagewatch\.events\.TEAM_A\.api\.forged"/);
    expect(seen.join("\n")).toMatch(/Permissions Violation for Subscription to "stagewatch\.observe"/);

    // JetStream is the service's account's alone: the team has none, so neither stream nor buckets.
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    await expect(jsm.streams.info(names.eventStream)).rejects.toMatchObject({ name: "JetStreamNotEnabled" });
    await expect(new Kvm(nc).open(names.recordsBucket).then((kv) => kv.get(`observations.${"x"}`))).rejects.toMatchObject({ name: "JetStreamNotEnabled" });

    // Its requests still reach the service, not the team's would-be queue group.
    expect((await (await observerOf("TEAM_A")).list()).items).toBeDefined();
    expect(taken).toEqual([]);
  });

  it("a team's subscription to every events subject sees its own tenant's only", async () => {
    const nc = await connectionOf("TEAM_B");
    const subjects = new Set<string>();
    nc.subscribe("stagewatch.events.>", { callback: (_, message) => void subjects.add(message.subject.split(".")[2]!) });
    await nc.flush();
    const api = deployment({ namespace: namespaceA, name: "seen" });
    await apply(kc, api.manifest);
    const run = await (await observerOf("TEAM_A")).observe(observeRequest({ deployment: "seen", resources: [api.identity] }));
    await run.verdict;
    const platform = await connectionOf("PLATFORM");
    const everyTenant = new Set<string>();
    platform.subscribe("stagewatch.events.>", { callback: (_, message) => void everyTenant.add(message.subject.split(".")[2]!) });
    await platform.flush();
    const again = await (await observerOf("TEAM_A")).observe(observeRequest({ deployment: "seen", resources: [api.identity] }));
    await again.verdict;
    await nc.flush();
    expect([...subjects]).toEqual([]);
    expect([...everyTenant]).toEqual(["TEAM_A"]);
  });

  it("an account importing another team's requests or events, or every event: the server will not start with it", async () => {
    const shipped = readFileSync(accountsFile, "utf8");
    const check = async (name: string, forged: string) => {
      const confDir = scratchDir(`tenants-forged-${name}`);
      writeFileSync(join(confDir, "accounts.conf"), forged);
      writeFileSync(join(confDir, "nats.conf"), "listen: 127.0.0.1:-1\ninclude ./accounts.conf\n");
      return execFileAsync(started.natsBinary, ["-c", join(confDir, "nats.conf"), "-t"], { env: started.passwordsEnv }).then(
        () => "started",
        (error: { stderr: string }) => error.stderr,
      );
    };
    const teamA = (text: string) => text.indexOf("TEAM_A {");
    const inTeamA = (from: string, to: string) => shipped.slice(0, teamA(shipped)) + shipped.slice(teamA(shipped)).replace(from, to);
    expect(await check("requests", inTeamA('subject: "stagewatch.get.TEAM_A"', 'subject: "stagewatch.get.TEAM_B"'))).toContain(
      'Error adding service import "stagewatch.get.TEAM_B": service import not authorized',
    );
    expect(await check("events", inTeamA('subject: "stagewatch.events.TEAM_A.>"', 'subject: "stagewatch.events.TEAM_B.>"'))).toContain(
      'Error adding stream import "stagewatch.events.TEAM_B.>": stream import not authorized',
    );
    expect(await check("all-events", inTeamA('subject: "stagewatch.events.TEAM_A.>"', 'subject: "stagewatch.events.>"'))).toContain(
      'Error adding stream import "stagewatch.events.>": stream import not authorized',
    );
    // The shipped layout itself loads every time: its exports are disjoint, so no start depends on the order nats-server tries them in.
    for (let start = 0; start < 10; start++) expect(await check("shipped", shipped)).toBe("started");
  });
});

describe("idempotency keys of two tenants", () => {
  it("the same key from TEAM_A and TEAM_B: two observations; other content under a used key is a conflict naming no id", async () => {
    const key = `ci-${randomBytes(3).toString("hex")}/app`;
    const a = await (await observerOf("TEAM_A")).observe(
      observeRequest({ key, deployment: "app", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceA, name: "app" }], absentGraceSeconds: 300 }),
    );
    const b = await (await observerOf("TEAM_B")).observe(
      observeRequest({ key, deployment: "app", resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceB, name: "app" }], absentGraceSeconds: 300 }),
    );
    expect([a.replay, b.replay]).toEqual([false, false]);
    expect(a.observationId).not.toBe(b.observationId);

    const conflict = await (await observerOf("TEAM_B"))
      .observe(observeRequest({ key, deployment: "app", timeoutSeconds: 60, resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: namespaceB, name: "app" }] }))
      .then(() => undefined, (error: unknown) => error);
    expect(conflict).toBeInstanceOf(ObservationConflictError);
    expect((conflict as Error).message).not.toContain(a.observationId);
    expect((conflict as Error).message).not.toContain(b.observationId);
    for (const [account, id] of [["TEAM_A", a.observationId], ["TEAM_B", b.observationId]] as const) await (await observerOf(account)).cancel(id);
  });
});

describe("a Nats-Request-Info header the caller wrote", () => {
  it("TEAM_B naming TEAM_A in it: the server replaces it, and TEAM_B is answered as TEAM_B", async () => {
    const slow = deployment({ namespace: namespaceA, name: "claimed", fault: Fault.NeverReady });
    await apply(kc, slow.manifest);
    const run = await (await observerOf("TEAM_A")).observe(observeRequest({ deployment: "claimed", resources: [slow.identity], timeoutSeconds: 600 }));
    const nc = await connectionOf("TEAM_B");
    const claimed = headers();
    claimed.set("Nats-Request-Info", JSON.stringify({ acc: "TEAM_A", rtt: 1 }));
    const answer = (await nc.request(names.get, JSON.stringify({ observationId: run.observationId }), { headers: claimed, timeout: 10_000 })).json();
    expect(answer).toMatchObject({ ok: false, error: { code: "not_found" } });
    await (await observerOf("TEAM_A")).cancel(run.observationId);
  });

  it("the service's own account sending a request: refused by the server", async () => {
    const nc = await connectionOf("STAGEWATCH");
    const claimed = headers();
    claimed.set("Nats-Request-Info", JSON.stringify({ acc: "TEAM_A" }));
    await expect(nc.request(names.tenantRequest("list", "TEAM_A"), "{}", { headers: claimed, timeout: 10_000 })).rejects.toThrow(/Permissions Violation for Publish/);
  });

  describe("a same-account client on a single-account server", () => {
    const serves = useServes();

    it("header written by the client, missing, or on the plain subject: forbidden, naming the caller", async () => {
      const served = await serves.start({ name: "tenants-open", args: [`--tenants=${tenantsFile}`] });
      const nc = await connect({ servers: natsUrl() });
      connections.push(nc);
      const ask = async (subject: string, header?: string) => {
        const h = headers();
        if (header !== undefined) h.set("Nats-Request-Info", header);
        return (await nc.request(subject, "{}", { headers: h, timeout: 10_000 })).json<{ ok: boolean; error?: { code: string; issues: { path: string; message: string }[] } }>();
      };
      const forged = await ask(served.names.tenantRequest("list", "TEAM_A"), JSON.stringify({ acc: "TEAM_A" }));
      expect(forged).toMatchObject({ ok: false, error: { code: "forbidden", issues: [{ path: "(caller)", message: expect.stringContaining("reply subject") }] } });
      const missing = await ask(served.names.tenantRequest("list", "TEAM_A"));
      expect(missing).toMatchObject({ ok: false, error: { code: "forbidden", issues: [{ path: "(caller)", message: expect.stringContaining("no Nats-Request-Info header") }] } });
      const plain = await ask(served.names.list, JSON.stringify({ acc: "TEAM_A" }));
      expect(plain).toMatchObject({ ok: false, error: { code: "forbidden", issues: [{ path: "(caller)" }] } });
      expect(readFileSync(join(served.dir, "serve.log"), "utf8")).toContain("tenants file loaded");
    });
  });
});

/**
 * Issue 32, finding 4, tried from the outside: a client given no key. Before, `observe` believed
 * whatever arrived on the verdict-notice subject: a forger holding the single account's
 * credentials published a `succeeded` verdict while the pod was in ImagePullBackOff, and observe
 * exited 0. Now a client given no key asks the service for its key on `<prefix>.keys` and asks the
 * NATS server whether anyone else holding its credentials could have answered; it never takes a
 * success it could not verify with a key from a trusted source (exit 3 instead, unless
 * --allow-unverified).
 *
 * On the shared single-account server of the e2e project: a signed service (the forgery is ignored,
 * exit 1 on the real failure), a service that signs nothing (the forgery is believed, but is no
 * success: exit 3), and a forger answering `keys`, `observe` and `get` itself with a key of its own
 * (what a learned key is worth on one account: exit 3). On the account layout of
 * deploy/nats/accounts.conf (accountLayout.ts): TEAM_A given no key learns the service's key where
 * no one else may answer and exits 0; a TEAM_A member trying to answer the keys request, by
 * subscribing to it or on the asker's inbox, is refused by the server.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { connect, createInbox, Empty, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames, connectObserver, type BusNames } from "../../src/bus/index.ts";
import { signBody } from "../../src/signing/index.ts";
import { newKey } from "../../src/signing/testing/keys.ts";
import type { ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { scratchDir, writeManifest, type CommandResult } from "../cluster/stagewatch.ts";
import { useAccountLayout, violations, type AccountLayout } from "./support/accountLayout.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { forgedVerdict, watchObservations } from "./support/forger.ts";
import { configMap, deployment, type Declared } from "./support/manifests.ts";
import { useServes } from "./support/serve.ts";
import { apply } from "./support/stagewatch.ts";

const kc = kubeConfig();
const serves = useServes();
const layout = useAccountLayout();
let dir: string;
let namespace: string;
/** The forger: a client of the same account as the service, nothing more. */
let forger: NatsConnection;

beforeAll(async () => {
  dir = scratchDir("learned-keys");
  namespace = await createNamespace("learned-keys");
  forger = await connect({ servers: natsUrl() });
});

afterAll(async () => {
  await forger?.close();
  if (namespace) await deleteNamespace(namespace);
});

function manifestFile(name: string, ...objects: Declared[]): string {
  return writeManifest(join(dir, `${name}.yaml`), objects.map((object) => object.manifest));
}

/** `stagewatch observe --json` as a CI job given no key runs it. */
const observeWithoutKey = (file: string, deploymentName: string, prefix: string, ...flags: string[]): Promise<CommandResult> =>
  runStagewatch(["observe", "-f", file, "--deployment", deploymentName, "--timeout", "2m", "--json", `--subject-prefix=${prefix}`, ...flags], {
    cwd: dir,
    env: { NATS_URL: natsUrl(), STAGEWATCH_VERIFY_KEY: "" },
  });

/**
 * Finding 4's forger: once it sees the service accept an observation, it publishes a `succeeded`
 * verdict on the observation's verdict-notice subject (the core subject every waiting client
 * listens on), every 50 ms until stopped, so the client meets it whenever it starts listening.
 */
async function forgeNotices(names: BusNames, deploymentName: string): Promise<{ published(): number; stop(): void }> {
  let published = 0;
  const timers: NodeJS.Timeout[] = [];
  const watching = await watchObservations(forger, names, ({ observationId, key }) => {
    const notice = JSON.stringify(forgedVerdict(observationId, deploymentName, { key }));
    const subject = names.verdictNotice(names.eventSubject(deploymentName, observationId));
    timers.push(
      setInterval(() => {
        forger.publish(subject, notice);
        published += 1;
      }, 50),
    );
  });
  return {
    published: () => published,
    stop() {
      watching.stop();
      for (const timer of timers) clearInterval(timer);
    },
  };
}

/**
 * observe, given no key, of a Deployment whose pods will be in ImagePullBackOff, while the forger
 * publishes its notices: the Deployment is applied once a few forgeries are out, so the forgery
 * comes first.
 */
async function observeUnderForgery(prefix: string, name: string): Promise<{ result: CommandResult; forged: number }> {
  const api = deployment({ namespace, name, fault: Fault.ImagePullBackOff, image: `registry.example/${name}:does-not-exist` });
  const forging = await forgeNotices(busNames(prefix), name);
  try {
    const running = observeWithoutKey(manifestFile(name, api), name, prefix);
    await eventually("a few forged notices out", async () => (forging.published() >= 5 ? true : undefined), { timeoutMs: 30_000, intervalMs: 50 });
    await apply(kc, api.manifest);
    const result = await running;
    return { result, forged: forging.published() };
  } finally {
    forging.stop();
  }
}

describe("one NATS account: a forger holding its credentials", () => {
  it("forged succeeded notices while the pod is in ImagePullBackOff: observe given no key learns the service's key, ignores them, exits 1 on the real failure", async () => {
    const service = await serves.start({ name: "forged-notice" });
    const { result, forged } = await observeUnderForgery(service.prefix, "api");
    expect(forged).toBeGreaterThanOrEqual(5);
    expect(result.status, output(result)).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "failed", failure: { reason: "ImagePullBackOff" }, verified: false });
    expect(result.stderr).toMatch(/^stagewatch: ignored an event of observation \S+ that failed verification \(no signature\), and \d+ more$/m);
    // The key came from whoever answered `keys`, which on one account anyone may: said, not trusted.
    expect(result.stderr).toMatch(/^stagewatch: verdict not verified: N[A-Z2-7]{55} was learned on \S+\.keys, where this client's own credentials may answer too \(they may subscribe to \S+\.keys and publish to an inbox: one account for all\)/m);
  });

  it("the same against a service that signs nothing: the forgery is believed, but observe takes no unverified success: exit 3", async () => {
    const service = await serves.start({ name: "unsigned", signed: false });
    const { result } = await observeUnderForgery(service.prefix, "web");
    expect(result.status, output(result)).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "succeeded", verified: false });
    expect(result.stderr).toContain(`stagewatch: verdict not verified: no key given, and the service signs nothing (${service.prefix}.keys lists no key)`);
    expect(result.stderr).toContain("stagewatch: exit 3: the verdict says succeeded, but it could not be verified as the service's");
  });

  it("--allow-unverified: a service that signs nothing, on purpose, and its genuine success is exit 0 again, said to be unverified", async () => {
    const service = await serves.start({ name: "unsigned-allowed", signed: false });
    const config = configMap(namespace, "allowed-config");
    await apply(kc, config.manifest);
    const file = manifestFile("allowed", config);
    const refused = await observeWithoutKey(file, "allowed", service.prefix);
    expect(refused.status, output(refused)).toBe(3);
    const allowed = await observeWithoutKey(file, "allowed", service.prefix, "--allow-unverified");
    expect(allowed.status, output(allowed)).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ outcome: "succeeded", verified: false });
    expect(allowed.stderr).toContain("stagewatch: verdict not verified: no key given, and the service signs nothing");
  });

  it("a forger answering keys, observe and get itself, signing with a key of its own: the learned key proves nothing here, exit 3", async () => {
    // A prefix no service answers: the forger is the whole service, as it may be on one account
    // (it could as well answer before the service does).
    const names = busNames(`e2e-impostor-${randomUUID().slice(0, 8)}`);
    const keys = new Map<string, string>();
    const answering = [
      forger.subscribe(names.keys, { callback: (_, message) => void message.respond(JSON.stringify({ ok: true, keys: [newKey.publicKey] })) }),
      forger.subscribe(names.observe, {
        callback: (_, message) => {
          const observationId = randomUUID();
          keys.set(observationId, message.json<{ key: string }>().key);
          message.respond(JSON.stringify({ ok: true, observationId, replay: false }));
        },
      }),
      forger.subscribe(names.get, {
        callback: (_, message) => {
          const { observationId } = message.json<{ observationId: string }>();
          const { verdict } = forgedVerdict(observationId, "impostor", { key: keys.get(observationId) ?? "" });
          message.respond(JSON.stringify({ ok: true, verdict: signBody<ObservationVerdict>(verdict, newKey) }));
        },
      }),
    ];
    await forger.flush();
    try {
      const result = await observeWithoutKey(manifestFile("impostor", configMap(namespace, "impostor")), "impostor", names.prefix);
      expect(result.status, output(result)).toBe(3);
      // Signed, with the key it was told: every check of the signature passes, and proves nothing.
      expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "succeeded", verified: false, signature: { key: newKey.publicKey } });
      expect(result.stderr).toContain(`stagewatch: verdict not verified: ${newKey.publicKey} was learned on ${names.keys}, where this client's own credentials may answer too`);
      expect(result.stderr).toContain("stagewatch: exit 3: the verdict says succeeded, but it could not be verified as the service's");
    } finally {
      for (const subscription of answering) subscription.unsubscribe();
    }
  });
});

describe("the account layout (deploy/nats/accounts.conf): TEAM_A given no key", () => {
  let started: AccountLayout;
  let namespaceA: string;

  beforeAll(async () => {
    // The shipped tenants file's pattern for TEAM_A: team-a-*.
    namespaceA = await createNamespace("team-a");
    started = await layout.start({ name: "learned-keys-layout" });
  }, 300_000);

  afterAll(async () => {
    if (namespaceA) await deleteNamespace(namespaceA);
  });

  it("learns the service's key on stagewatch.keys, where the server lets no one else answer, and takes its verified success: exit 0", async () => {
    const config = configMap(namespaceA, "app-config");
    await apply(kc, config.manifest);
    const result = await started.cli("TEAM_A", ["observe", "-f", manifestFile("team-a", config), "--deployment", "app", "--timeout", "2m", "--json"], { STAGEWATCH_VERIFY_KEY: "" });
    expect(result.status, output(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "succeeded", tenant: "TEAM_A", verified: true, signature: { key: started.publicKey } });
    expect(result.stderr).toContain(`stagewatch: verdict verified with ${started.publicKey}, learned on stagewatch.keys, where only the service may answer\n`);

    const { user, pass } = started.user("TEAM_A");
    const client = await connectObserver({ servers: started.nats.url, user, password: pass, prefix: "stagewatch", verifyKey: [] });
    try {
      expect(client.verification).toMatchObject({ source: "service", trusted: true, keys: [{ publicKey: started.publicKey }] });
    } finally {
      await client.close();
    }
  });

  it("a TEAM_A member cannot answer the keys request: not by taking it, not on the asker's inbox; the asker gets the service's answer only", async () => {
    const member = await started.connection("TEAM_A");
    const refusals = violations(member);
    const taking = new Promise<Error>((resolve) => member.subscribe("stagewatch.keys", { callback: (error) => void (error && resolve(error)) }));
    // A wildcard is allowed, and must not deliver what the subject's own subscription may not take.
    const overheard: string[] = [];
    member.subscribe("stagewatch.>", { callback: (_, message) => void overheard.push(message.subject) });
    await member.flush();
    expect(await taking).toMatchObject({ name: "PermissionViolationError", message: expect.stringContaining('Permissions Violation for Subscription to "stagewatch.keys"') });

    const asker = await started.connection("TEAM_A");
    const inbox = createInbox();
    const answers: unknown[] = [];
    asker.subscribe(inbox, { callback: (_, message) => void answers.push(message.json()) });
    await asker.flush();
    // The worst case: the member knows the asker's inbox (it cannot see it) and answers first, with a key of its own.
    member.publish(inbox, JSON.stringify({ ok: true, keys: [newKey.publicKey] }));
    await member.flush();
    asker.publish("stagewatch.keys", Empty, { reply: inbox });
    await eventually("the service's answer", async () => (answers.length > 0 ? answers : undefined));
    await Promise.all([asker.flush(), member.flush()]);
    expect(answers).toEqual([{ ok: true, keys: [started.publicKey] }]);
    expect(overheard).toEqual([]);
    await eventually("the server's refusal of the member's answer", async () => (refusals.some((line) => line.includes(`Permissions Violation for Publish to "${inbox}"`)) ? true : undefined));
  });
});

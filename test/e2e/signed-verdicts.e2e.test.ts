/**
 * Signed verdicts end to end (docs/operator/tenants-and-trust.md, docs/user/verifying.md): the
 * compiled `stagewatch serve --signing-key` with a key pair made by `stagewatch keys create`,
 * against the cluster and nats-server of the e2e project, and a forger on the same NATS account: it
 * may publish on the events subjects and read every subject, as any client of an open bus may. It
 * publishes a `succeeded` verdict under the message id `<id>.verdict` before the service decides an
 * observation that fails, which before signatures made the stream drop the service's verdict as a
 * duplicate; it replays the service's genuine verdict of another observation; it answers `get`
 * where no service runs. The client and `stagewatch observe` given the service's public key report
 * the real outcome and count what they ignored, and so does examples/go-client, which checks the
 * signatures in Go. Without the key, `observe` and the client learn it from the service on
 * `<prefix>.keys` and ignore the forgery too, saying that on one account the key proves little; a
 * client that verifies nothing still ends on the forgery, and the Go client, which learns nothing,
 * then takes no success (exit 3). Then the key is rotated, and the chart is rendered with a signing
 * key.
 */
import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { jetstream, type JetStreamClient, type PubAck } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { KubernetesObject, V1Deployment } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames, connectObserver, createObserver, VerdictVerificationError, type Observer } from "../../src/bus/index.ts";
import { checkEvent, checkVerdict, verifyKeysOf, type VerifyKey } from "../../src/signing/index.ts";
import type { ObservationEvent, ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { applyObjects, ensureHelm, lintChart, renderChart, templateChart } from "../cluster/helm.ts";
import { REPO_ROOT, scratchDir, startServe, writeManifest, type CommandResult, type RunningService } from "../cluster/stagewatch.ts";
import { removeBus } from "./support/bus.ts";
import { forgedVerdict, watchObservations } from "./support/forger.ts";
import { compiledStagewatch, output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { configMap, deployment, type Declared } from "./support/manifests.ts";
import { apply, collect, observeRequest } from "./support/stagewatch.ts";

const execFileAsync = promisify(execFile);
// A cold build of Helm from the Go module proxy takes minutes on two cores; later runs reuse it.
const HELM_BUILD_TIMEOUT_MS = 20 * 60_000;

const kc = kubeConfig();
const prefix = `e2e-signed-${randomBytes(3).toString("hex")}`;
const names = busNames(prefix);
let dir: string;
let namespace: string;
let service: RunningService | undefined;
/** The forger's connection: a client of the same account, nothing more. */
let forger: NatsConnection;
let forgerJs: JetStreamClient;
let publicKey: string;
let keys: VerifyKey[];
const observers: Observer[] = [];

/** `stagewatch ARGS` with no key unless `env` gives this file's (not the e2e services' key: this file's service signs with its own). */
const stagewatch = (args: string[], env: NodeJS.ProcessEnv = {}) => runStagewatch(args, { cwd: dir, env: { NATS_URL: natsUrl(), STAGEWATCH_VERIFY_KEY: "", ...env } });

/**
 * `stagewatch serve` signing with the seed in `keyFile`, on this file's prefix: started here
 * rather than by the shared serve fixture, which gives each service a prefix of its own, because
 * the rotation test restarts it on the same records with another key.
 */
const serve = (keyFile: string, env: NodeJS.ProcessEnv = {}) =>
  startServe(compiledStagewatch().cli, { kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), dir, args: [`--subject-prefix=${prefix}`, `--signing-key=${keyFile}`], env });

/** A client given `verifyKey`; given none, it learns the key from the service unless `learn` is false. */
async function observer(verifyKey: string | readonly string[], learn = true): Promise<Observer> {
  const made = await connectObserver({ servers: natsUrl(), prefix, verifyKey, learnVerifyKey: learn });
  observers.push(made);
  return made;
}

/** `stagewatch keys create FILE`: the public key it printed. */
async function createKey(name: string): Promise<{ file: string; publicKey: string }> {
  const file = join(dir, name);
  const created = await stagewatch(["keys", "create", file]);
  expect(created.status, output(created)).toBe(0);
  return { file, publicKey: created.stdout.trim() };
}

beforeAll(async () => {
  dir = scratchDir("signed");
  const key = await createKey("signing.nk");
  publicKey = key.publicKey;
  keys = verifyKeysOf(publicKey);
  namespace = await createNamespace("signed");
  service = await serve(key.file);
  forger = await connect({ servers: natsUrl() });
  forgerJs = jetstream(forger);
});

afterAll(async () => {
  await Promise.all(observers.map((o) => o.close()));
  await service?.process.stop();
  await forger?.close();
  await removeBus(natsUrl(), prefix);
  if (namespace) await deleteNamespace(namespace);
});

/** The forger's publish, under the message id the service's verdict had before signatures. */
const forge = (observationId: string, deployment: string): Promise<PubAck> =>
  forgerJs.publish(names.eventSubject(deployment, observationId), JSON.stringify(forgedVerdict(observationId, deployment)), { msgID: `${observationId}.verdict` });

/** Every message the stream holds on an observation's subject, with the message id it was stored under. */
async function storedMessages(deployment: string, observationId: string): Promise<{ msgId: string | undefined; body: ObservationEvent }[]> {
  const consumer = await forgerJs.consumers.get(names.eventStream, { filter_subjects: [names.eventSubject(deployment, observationId)] });
  const stored: { msgId: string | undefined; body: ObservationEvent }[] = [];
  for (;;) {
    const message = await consumer.next({ expires: 2_000 });
    if (message === null) return stored;
    stored.push({ msgId: message.headers?.get("Nats-Msg-Id"), body: message.json<ObservationEvent>() });
    if (message.info.pending === 0) return stored;
  }
}

/**
 * The forger's side of `stagewatch observe`: it reads the service's answer on the requester's inbox,
 * and forges at once. It watches before the client under test starts: a client that starts fast
 * (the Go one) could otherwise send its request first and never be forged at.
 */
async function forgeEveryObservation(deployment: string): Promise<{ forged: Promise<PubAck>[]; stop(): void }> {
  const forged: Promise<PubAck>[] = [];
  const watching = await watchObservations(forger, names, ({ observationId }) => forged.push(forge(observationId, deployment)));
  return { forged, stop: () => watching.stop() };
}

/** A manifest file declaring `objects`, as a chart renders them. */
function manifestFile(name: string, ...objects: Declared[]): string {
  return writeManifest(join(dir, `${name}.yaml`), objects.map((object) => object.manifest));
}

/** The observation the first test fails: its verdict is signed by the first key. */
let failedId: string;

describe("a forged succeeded verdict published first under the verdict's old message id", () => {

  it("the client given the service's key reports the real failed outcome, counts the one event it ignored, and the service's verdict is on the stream", async () => {
    const api = deployment({ namespace, name: "api", fault: Fault.ImagePullBackOff, image: "registry.example/api:does-not-exist" });
    const verifying = await observer(publicKey);
    const trusting = await observer([], false);
    const learning = await observer([]);
    // Not applied yet: the observation cannot be decided before the forger has published.
    const run = await verifying.observe(observeRequest({ deployment: "api", resources: [api.identity], absentGraceSeconds: 120, timeoutSeconds: 180 }));
    failedId = run.observationId;
    const ack = await forge(run.observationId, "api");
    expect(ack.duplicate).toBe(false);
    // What the forger gets from a client that verifies nothing: the observation ends on its word.
    expect((await trusting.follow(run.observationId).verdict).outcome).toBe("succeeded");
    // A client given no key learned the service's: the forgery is ignored, but on this one-account
    // NATS the key proves only that whoever answered `keys` also signed.
    expect(learning.verification).toMatchObject({ source: "unproven", trusted: false, keys: [{ publicKey }] });
    const learned = learning.follow(run.observationId).verdict;

    await apply(kc, api.manifest);
    const { events, verdict } = await collect(run);
    expect(verdict).toMatchObject({ observationId: run.observationId, outcome: "failed", failure: { reason: "ImagePullBackOff" } });
    expect(verifying.verifies).toBe(true);
    expect(verifying.rejected).toBe(1);
    expect(await learned).toMatchObject({ outcome: "failed", signature: { key: publicKey } });
    for (const event of events) expect(checkEvent(event, keys, { observationId: run.observationId }), JSON.stringify(event)).toMatchObject({ trusted: true });

    const verdicts = (await storedMessages("api", run.observationId)).filter((message) => message.body.type === "verdict");
    const signature = verdicts[1]?.body.signature?.sig ?? "";
    expect(verdicts.map(({ msgId, body }) => [msgId, body.type === "verdict" && body.verdict.outcome])).toEqual([
      [`${run.observationId}.verdict`, "succeeded"],
      [`${run.observationId}.verdict.${signature.slice(0, 32)}`, "failed"],
    ]);
  });

  it("a get answer is the stored verdict with the service's signature", async () => {
    const answer = (await forger.request(names.get, JSON.stringify({ observationId: failedId }), { timeout: 10_000 })).json<{ ok: true; verdict: unknown }>();
    expect(checkVerdict(answer.verdict, keys, { observationId: failedId })).toEqual({ trusted: true, key: publicKey });
    const verifying = await observer(publicKey);
    expect(await verifying.get(failedId)).toMatchObject({ outcome: "failed", signature: { key: publicKey } });
    expect(verifying.rejected).toBe(0);
  });

  it("stagewatch observe with STAGEWATCH_VERIFY_KEY exits 1 with the real verdict, says once what it ignored, and its verdict file verifies", async () => {
    const ghost = deployment({ namespace, name: "ghost" });
    const forging = await forgeEveryObservation("ghost");
    const verdictFile = join(dir, "ghost-verdict.json");
    let result: CommandResult;
    try {
      // Never applied: NotFound once the absence grace (10 s) has passed, long after the forgery.
      result = await stagewatch(
        ["observe", "-f", manifestFile("ghost", ghost), "--deployment", "ghost", "--timeout", "2m", "--json", "--verdict-file", verdictFile, `--subject-prefix=${prefix}`],
        { STAGEWATCH_VERIFY_KEY: publicKey },
      );
    } finally {
      forging.stop();
    }
    expect(forging.forged).toHaveLength(1);
    expect((await forging.forged[0]!).duplicate).toBe(false);
    expect(result.status, output(result)).toBe(1);
    const printed = JSON.parse(result.stdout) as ObservationVerdict & { verified: boolean };
    expect(printed).toMatchObject({ outcome: "failed", verified: true, failure: { reason: "NotFound" } });
    expect(result.stderr.match(/^stagewatch: ignored an event of observation \S+ that failed verification \(no signature\)$/gm), output(result)).toHaveLength(1);
    expect(result.stderr).not.toContain("not verified");

    const evidence = JSON.parse(readFileSync(verdictFile, "utf8")) as ObservationVerdict;
    // The file is what the service signed: without observe's own notes beside it (verified, mode).
    expect(printed).toMatchObject({ mode: "service" });
    expect(evidence).toEqual(Object.fromEntries(Object.entries(printed).filter(([name]) => name !== "verified" && name !== "mode")));
    const valid = await stagewatch(["verify", verdictFile, "--verify-key", publicKey, "--outcome", "failed", "--deployment", "ghost", "--key", evidence.key]);
    expect(valid.status, output(valid)).toBe(0);
    expect(valid.stdout).toBe(
      `valid: observation ${evidence.observationId}, deployment ghost, key ${evidence.key}, tenant (none), namespaces ${namespace}: failed, decided at ${evidence.decidedAt} (signed by ${publicKey})\n`,
    );
    // As a gate (the outcome succeeded unless told otherwise), the same genuine file is no pass.
    expect((await stagewatch(["verify", verdictFile, "--verify-key", publicKey])).status).toBe(1);
    // observe's --json output, as the CI example keeps it, verifies too.
    const jsonOutput = join(dir, "ghost-output.json");
    writeFileSync(jsonOutput, result.stdout);
    expect((await stagewatch(["verify", jsonOutput, "--outcome", "failed"], { STAGEWATCH_VERIFY_KEY: publicKey })).status).toBe(0);
    const tampered = join(dir, "ghost-tampered.json");
    writeFileSync(tampered, JSON.stringify({ ...evidence, outcome: "succeeded" }));
    const invalid = await stagewatch(["verify", tampered, "--verify-key", publicKey]);
    expect(invalid.status, output(invalid)).toBe(1);
    expect(invalid.stdout).toContain("does not match the content");

    const got = await stagewatch(["get", evidence.observationId, "-o", "json", `--subject-prefix=${prefix}`], { STAGEWATCH_VERIFY_KEY: publicKey });
    expect(got.status, output(got)).toBe(1);
    expect(got.stderr).toBe("");
    const unverified = await stagewatch(["get", evidence.observationId, `--subject-prefix=${prefix}`]);
    expect(unverified.status, output(unverified)).toBe(1);
    expect(unverified.stderr).toContain(`stagewatch: verdict not verified: ${publicKey} was learned on ${prefix}.keys, where this client's own credentials may answer too`);
  });

  it("stagewatch observe without a key learns the service's, ignores the forgery and exits 1; the learned key is not taken for proof", async () => {
    const ghost = deployment({ namespace, name: "ghost-unverified" });
    const forging = await forgeEveryObservation("ghost-unverified");
    let result: CommandResult;
    try {
      result = await stagewatch(["observe", "-f", manifestFile("ghost-unverified", ghost), "--deployment", "ghost-unverified", "--timeout", "2m", "--json", `--subject-prefix=${prefix}`]);
    } finally {
      forging.stop();
    }
    expect(forging.forged).toHaveLength(1);
    expect(result.status, output(result)).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "failed", verified: false, failure: { reason: "NotFound" } });
    expect(result.stderr).toMatch(/^stagewatch: ignored an event of observation \S+ that failed verification \(no signature\)$/m);
    expect(result.stderr).toContain(`stagewatch: verdict not verified: ${publicKey} was learned on ${prefix}.keys`);
  });
});

describe("copies of the service's own signed words", () => {
  it("its genuine succeeded verdict of another observation, replayed on a failing one's subject, is ignored; so is one altered to name it", async () => {
    const web = configMap(namespace, "web-config");
    await apply(kc, web.manifest);
    const verifying = await observer(publicKey);
    const healthy = await verifying.observe(observeRequest({ deployment: "web", resources: [web.identity], timeoutSeconds: 120 }));
    expect((await healthy.verdict).outcome).toBe("succeeded");
    // The verdict came from its core-subject notice; the stream's copy is a few milliseconds behind.
    const genuine = await eventually("the verdict on the stream", async () =>
      (await storedMessages("web", healthy.observationId)).find((message) => message.body.type === "verdict")?.body,
    );

    const failing = await verifying.observe(
      observeRequest({ deployment: "web", resources: [configMap(namespace, "never-applied").identity], absentGraceSeconds: 5, timeoutSeconds: 120 }),
    );
    const subject = names.eventSubject("web", failing.observationId);
    await forgerJs.publish(subject, JSON.stringify(genuine));
    await forgerJs.publish(subject, JSON.stringify({ ...genuine, observationId: failing.observationId }));
    const { verdict } = await collect(failing);
    expect(verdict).toMatchObject({ observationId: failing.observationId, outcome: "failed", failure: { reason: "NotFound" } });
    expect(verifying.rejected).toBe(2);
  });

  it("a get answered by someone other than the service is refused, even when it is a verdict the service signed", async () => {
    // No service on this prefix: the forger is the only one answering.
    const elsewhere = busNames(`${prefix}-forged`);
    const failed = (await forger.request(names.get, JSON.stringify({ observationId: failedId }), { timeout: 10_000 })).json<{ verdict: ObservationVerdict }>();
    const answers = [
      { ok: true, verdict: { ...failed.verdict, outcome: "succeeded", signature: undefined } },
      { ok: true, verdict: failed.verdict },
    ];
    const answering = forger.subscribe(elsewhere.get, {
      callback: (_, message) => {
        message.respond(JSON.stringify(answers.shift()));
      },
    });
    const verifying = createObserver(forger, { prefix: elsewhere.prefix, verifyKey: publicKey });
    try {
      await expect(verifying.get(failed.verdict.observationId)).rejects.toThrow(new VerdictVerificationError(`the answer about observation ${failed.verdict.observationId} failed verification: no signature`));
      await expect(verifying.get("0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0")).rejects.toThrow(/failed verification: a verdict of observation \S+, not 0b1c2d3e/);
      expect(verifying.rejected).toBe(2);
    } finally {
      answering.unsubscribe();
      await verifying.close();
    }
  });
});

describe("examples/go-client given the service's key", () => {
  let client: string;

  beforeAll(() => {
    const goBinary = spawnSync("sh", ["-c", "command -v go"], { encoding: "utf8" }).stdout.trim() || (existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : "go");
    const source = join(REPO_ROOT, "examples/go-client");
    const env = { ...process.env, CGO_ENABLED: "0" };
    // Its unit test: the known answer of docs/user/verifying.md verifies with the canonical form
    // written in Go.
    const tested = spawnSync(goBinary, ["test", "-mod=readonly", "."], { cwd: source, encoding: "utf8", env });
    if (tested.status !== 0) throw new Error(`go test failed:\n${tested.stdout}${tested.stderr}`);
    client = join(dir, "go-client");
    const built = spawnSync(goBinary, ["build", "-mod=readonly", "-o", client, "."], { cwd: source, encoding: "utf8", env });
    if (built.status !== 0) throw new Error(`go build failed:\n${built.stdout}${built.stderr}`);
  }, 600_000);

  /** The client to completion; a status other than 0 comes back as execFile's error, with the output. */
  async function runClient(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
    try {
      const { stdout, stderr } = await execFileAsync(client, args, { env: { NATS_URL: natsUrl(), STAGEWATCH_SUBJECT_PREFIX: prefix, ...env }, timeout: 120_000 });
      return { status: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number | string; stdout?: string; stderr?: string };
      return { status: typeof failed.code === "number" ? failed.code : null, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
    }
  }

  it.each([
    ["with STAGEWATCH_VERIFY_KEY: skips the forgery and exits 1 on the service's verdict", true],
    ["without: ends on the forgery, but takes no unverified success: exit 3", false],
  ])("%s", async (_, verifying) => {
    const name = verifying ? "go-verified" : "go-unverified";
    const forging = await forgeEveryObservation(name);
    let result: CommandResult;
    try {
      result = await runClient(["-deployment", name, "-namespace", namespace, "-timeout", "2m", `apps/v1/Deployment/${name}`], verifying ? { STAGEWATCH_VERIFY_KEY: publicKey } : {});
    } finally {
      forging.stop();
    }
    expect(forging.forged).toHaveLength(1);
    if (verifying) {
      expect(result.status, output(result)).toBe(1);
      expect(result.stdout).toMatch(new RegExp(`^deployment ${name} cannot reach \\w+: Deployment ${namespace}/${name}: .*NotFound`));
      expect(result.stderr).toContain("ignored an event that failed verification (no signature)\n");
    } else {
      expect(result.status, output(result)).toBe(3);
      expect(result.stdout).toBe(`deployment ${name} reached healthy: 1 resource settled\n`);
      expect(result.stderr).toContain("the verdict says succeeded, but it was not verified (no STAGEWATCH_VERIFY_KEY): exit 3");
    }
  });
});

describe("rotating the signing key", () => {
  it("the service signs with the new key; a client given both keys still verifies what the old one signed, a client given only the new one does not", async () => {
    const next = await createKey("signing-next.nk");
    await service?.process.stop();
    // Refused at start: clients given only the old key would reject every verdict of the new one.
    const mismatched = await stagewatch(["serve", `--signing-key=${next.file}`, `--subject-prefix=${prefix}`], { KUBECONFIG: kubeconfigPath(), STAGEWATCH_VERIFY_KEY: publicKey });
    expect(mismatched.status, output(mismatched)).toBe(2);
    expect(mismatched.stderr).toContain(`does not list the signing key's public key ${next.publicKey}`);

    service = await serve(next.file, { STAGEWATCH_VERIFY_KEY: `${next.publicKey},${publicKey}` });
    const both = await observer([next.publicKey, publicKey]);
    const onlyNew = await observer(next.publicKey);
    expect(await both.get(failedId)).toMatchObject({ outcome: "failed", signature: { key: publicKey } });
    await expect(onlyNew.get(failedId)).rejects.toThrow(VerdictVerificationError);

    const config = configMap(namespace, "after-rotation");
    await apply(kc, config.manifest);
    const run = await both.observe(observeRequest({ deployment: "rotated", resources: [config.identity], timeoutSeconds: 120 }));
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", signature: { key: next.publicKey } });
    expect(checkVerdict(verdict, verifyKeysOf(publicKey))).toMatchObject({ trusted: false, problem: "unknown key" });
    expect(both.rejected).toBe(0);
  });
});

describe("the chart with a signing key", () => {
  const signing = { existingSecret: "stagewatch-signing", publicKeys: ["NDV56JXZSGQDWYYKNHNPJGOMJASLD6YH5OCFXJEMM3CT4GRVZ3VYGRTQ", "NCPPGQZFXWV2SYDYBAJCMGOB5XT2AC3VTQYEIAQHC6INVDCQEJTIOHVT"] };
  const releaseNamespaces: string[] = [];

  beforeAll(async () => {
    await ensureHelm();
  }, HELM_BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(releaseNamespaces.map((name) => deleteNamespace(name)));
  });

  it("mounts the seed from its Secret as a file, gives the service the public keys, and publishes them in a ConfigMap", async () => {
    expect(lintChart({ set: { signing } }).status).toBe(0);
    const release = await createNamespace("helm-signing");
    releaseNamespaces.push(release);
    const objects = renderChart({ set: { signing }, releaseName: "stagewatch", namespace: release });
    const keysMap = objects.find((object) => object.kind === "ConfigMap" && object.metadata?.name === "stagewatch-verify-keys") as KubernetesObject & { data: Record<string, string> };
    expect(keysMap.data).toEqual({ STAGEWATCH_VERIFY_KEY: signing.publicKeys.join(",") });
    const pod = (objects.find((object) => object.kind === "Deployment") as V1Deployment).spec!.template.spec!;
    const container = pod.containers[0]!;
    expect(container.env?.filter((variable) => variable.name.startsWith("STAGEWATCH_") && variable.name !== "STAGEWATCH_REPLICA_ID")).toEqual([
      { name: "STAGEWATCH_SIGNING_KEY_FILE", value: "/etc/stagewatch/signing/signing.nk" },
      { name: "STAGEWATCH_VERIFY_KEY", valueFrom: { configMapKeyRef: { name: "stagewatch-verify-keys", key: "STAGEWATCH_VERIFY_KEY" } } },
    ]);
    expect(container.volumeMounts).toEqual([{ name: "signing-key", mountPath: "/etc/stagewatch/signing", readOnly: true }]);
    expect(pod.volumes).toEqual([
      { name: "signing-key", secret: { secretName: "stagewatch-signing", defaultMode: 0o440, items: [{ key: "signing.nk", path: "signing.nk" }] } },
    ]);
    // Every object as the API server would take it.
    await applyObjects(kc, objects, { dryRun: true });
  });

  it.each([
    ["a Secret without public keys", { existingSecret: "stagewatch-signing" }, "signing.publicKeys: list the signing key's public key"],
    ["public keys without a Secret", { publicKeys: signing.publicKeys }, "signing.existingSecret: name the Secret"],
    ["a user's public key", { ...signing, publicKeys: ["UB2AKA6PNSXHW4QZSZHICRZ2BUTBYS5E5S42BX7JCUVOSL77TNHVWJQS"] }, "does not match pattern"],
  ])("refuses %s", (_, values, message) => {
    const result = templateChart({ set: { signing: values } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});

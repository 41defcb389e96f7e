/**
 * The verdict as an in-toto attestation, checked by code stagewatch did not write (issue 36,
 * section 2; docs/user/verifying.md): the compiled `stagewatch serve`, signing with the e2e key and
 * naming its cluster, observes a Deployment and a StatefulSet whose images are pinned by digest (kwok
 * writes the digest as `imageID`, as a kubelet does after pulling by digest). `stagewatch observe
 * --verdict-file` writes the DSSE envelope, and test/cluster/go/dsse-verify, over
 * go-securesystemslib's DSSE verifier and in-toto's Statement v1 type and validation, verifies it
 * with the PEM key `stagewatch keys pem` prints, and finds the images as subjects and the verdict as
 * the predicate; the same tool refuses the envelope tampered with and under another key.
 * `stagewatch verify` reads the envelope too; a verdict with no image digest stays a signed verdict.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSigningSeed } from "../../src/signing/index.ts";
import { verdictPredicateType, type DsseEnvelope } from "../../src/verdicts/contract/attestation.ts";
import { buildOrReuseTool } from "../cluster/binaries.ts";
import { runToCompletion, scratchDir, writeManifest, type CommandResult } from "../cluster/stagewatch.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, kubeConfig } from "./support/cluster.ts";
import { configMap, deployment, statefulSet, type Declared } from "./support/manifests.ts";
import { useServes } from "./support/serve.ts";
import { e2eVerifyKey } from "./support/signing.ts";
import { apply } from "./support/stagewatch.ts";

// A first build fetches the DSSE and in-toto modules from the Go module proxy (.ci/run builds it before the tests).
const SETUP_TIMEOUT_MS = 600_000;
const cluster = "e2e-local";
const kc = kubeConfig();
const apiDigest = "8f4e2a6c1b3d5f7092a4c6e8f0b2d4a6c8e0f2a4b6c8d0e2f4a6b8c0d2e4f6a8";
const cacheDigest = "1c3e5a7b9d0f2e4a6c8b0d2f4a6e8c0b2d4f6a8e0c2b4d6f8a0e2c4b6d8f0a2c";

describe("a verdict's in-toto attestation, verified with the DSSE and in-toto reference libraries", () => {
  const serves = useServes();
  let dir: string;
  let namespace: string;
  let prefix: string;
  let verifier: string;
  let pemFile: string;

  beforeAll(async () => {
    dir = scratchDir("attested");
    verifier = buildOrReuseTool("dsse-verify");
    namespace = await createNamespace("attested");
    prefix = (await serves.start({ name: "attested", args: ["--cluster-name", cluster] })).prefix;
    pemFile = await pemOf(e2eVerifyKey(), "service.pem");
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    if (namespace) await deleteNamespace(namespace);
  });

  /** `stagewatch keys pem KEY` written to a file: what an operator hands a standard verifier. */
  async function pemOf(publicKey: string, name: string): Promise<string> {
    const printed = await runStagewatch(["keys", "pem", publicKey]);
    expect(printed.status, output(printed)).toBe(0);
    expect(printed.stdout).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END PUBLIC KEY-----\n$/);
    return writeFileSafe(name, printed.stdout);
  }

  const writeFileSafe = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  /** The reference verifier, as a release gate runs it. */
  const referenceVerify = (envelopeFile: string, key = pemFile): Promise<CommandResult> =>
    runToCompletion(verifier, ["-key", key, "-type", verdictPredicateType, envelopeFile], { cwd: dir, env: {}, timeoutMs: 30_000 });

  const applyAll = (...objects: Declared[]) => apply(kc, ...objects.map((object) => object.manifest));

  /** `stagewatch observe` of `objects` (applied before), keeping the verdict file. */
  async function observe(name: string, objects: Declared[]): Promise<{ result: CommandResult; verdictFile: string }> {
    const manifests = writeManifest(join(dir, `${name}.yaml`), objects.map((object) => object.manifest));
    const verdictFile = join(dir, `${name}.json`);
    const result = await runStagewatch(["observe", "-f", manifests, "--deployment", name, "--key", `ci/${name}`, "--timeout", "2m", "--verdict-file", verdictFile, `--subject-prefix=${prefix}`]);
    return { result, verdictFile };
  }

  let envelopeFile: string;
  let envelope: DsseEnvelope;

  it("observe --verdict-file writes a DSSE envelope that the reference verifier accepts with the PEM key: the images by digest, the verdict as predicate", async () => {
    const api = deployment({ namespace, name: "api", replicas: 2, image: `registry.example/payments/api@sha256:${apiDigest}` });
    const cache = statefulSet({ namespace, name: "cache", replicas: 1, image: `registry.example/payments/cache@sha256:${cacheDigest}` });
    const settings = configMap(namespace, "payments-settings");
    await applyAll(api, cache, settings);
    const { result, verdictFile } = await observe("payments", [api, cache, settings]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stderr).not.toContain("--verdict-file");
    envelopeFile = verdictFile;
    envelope = JSON.parse(readFileSync(verdictFile, "utf8")) as DsseEnvelope;
    expect(envelope).toMatchObject({ payloadType: "application/vnd.in-toto+json", signatures: [{ keyid: "" }] });

    const verified = await referenceVerify(verdictFile);
    expect(verified.status, output(verified)).toBe(0);
    const statement = JSON.parse(verified.stdout) as { _type: string; subject: unknown[]; predicateType: string; predicate: Record<string, unknown> };
    expect(statement._type).toBe("https://in-toto.io/Statement/v1");
    expect(statement.predicateType).toBe(verdictPredicateType);
    expect(statement.subject).toEqual([
      { name: "registry.example/payments/api", digest: { sha256: apiDigest } },
      { name: "registry.example/payments/cache", digest: { sha256: cacheDigest } },
    ]);
    expect(statement.predicate).toMatchObject({
      deployment: "payments",
      key: "ci/payments",
      cluster: { name: cluster },
      required: "healthy",
      reached: "healthy",
      outcome: "succeeded",
      decidedAt: expect.any(String),
    });
    expect(statement.predicate["resources"]).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ identity: api.identity, state: "settled", images: [`registry.example/payments/api@sha256:${apiDigest}`] }),
        expect.objectContaining({ identity: settings.identity, state: "settled" }),
      ]),
    );
  });

  it("stagewatch verify reads the same envelope and binds its predicate", async () => {
    const valid = await runStagewatch(["verify", envelopeFile, "--verify-key", e2eVerifyKey(), "--key", "ci/payments", "--deployment", "payments"]);
    expect(valid.status, output(valid)).toBe(0);
    expect(valid.stdout).toMatch(new RegExp(`^valid: .*deployment payments, key ci/payments.*: succeeded, .*in-toto attestation of registry\\.example/payments/api@sha256:${apiDigest}, registry\\.example/payments/cache@sha256:${cacheDigest}\\)\\n$`));
  });

  it("the reference verifier refuses the envelope tampered with, and under another key", async () => {
    const statement = Buffer.from(envelope.payload, "base64").toString("utf8");
    expect(statement).toContain(apiDigest);
    const forgedDigest = "0".repeat(64);
    const tampered = writeFileSafe("tampered.json", JSON.stringify({ ...envelope, payload: Buffer.from(statement.replace(apiDigest, forgedDigest)).toString("base64") }));
    const refused = await referenceVerify(tampered);
    expect(refused.status, output(refused)).toBe(1);
    expect(refused.stderr).toContain("signature refused");

    const otherKey = await pemOf(newSigningSeed().publicKey, "other.pem");
    const wrongKey = await referenceVerify(envelopeFile, otherKey);
    expect(wrongKey.status, output(wrongKey)).toBe(1);
    expect(wrongKey.stderr).toContain("signature refused");
  });

  it("a verdict whose workloads run no image by digest is kept as the signed verdict, and observe says why", async () => {
    const tagged = deployment({ namespace, name: "tagged", replicas: 1, image: "registry.example/payments/tagged:7" });
    await applyAll(tagged);
    const { result, verdictFile } = await observe("tagged", [tagged]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stderr).toContain("stagewatch: --verdict-file: wrote the signed verdict, not an in-toto attestation: no settled workload reports an image digest");
    expect(JSON.parse(readFileSync(verdictFile, "utf8"))).toMatchObject({ deployment: "tagged", outcome: "succeeded", signature: { key: e2eVerifyKey() } });
    const valid = await runStagewatch(["verify", verdictFile, "--verify-key", e2eVerifyKey(), "--deployment", "tagged"]);
    expect(valid.status, output(valid)).toBe(0);
  });
});

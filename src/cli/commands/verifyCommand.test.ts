import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { serviceSigner, signBody } from "../../signing/index.js";
import { newKey, oldKey } from "../../signing/testing/keys.js";
import { apiImage, failedVerdict, sidecarImage, succeededVerdict } from "../../../test/fixtures/verdicts.js";
import { verdictEvidence } from "../io/verdictFile.js";
import { runCli } from "../testing/runCli.js";

const dir = mkdtempSync(join(tmpdir(), "stagewatch-verify-"));
const verdict = failedVerdict;
const signed = signBody(verdict, newKey);
let files = 0;
/** A file holding `content` (JSON unless a string), pretty-printed as observe writes it. */
const file = (content: unknown) => {
  const path = join(dir, `verdict-${++files}.json`);
  writeFileSync(path, typeof content === "string" ? content : `${JSON.stringify(content, null, 2)}\n`);
  return path;
};
/** The signature's checks, on the fixture's failed verdict: its outcome is the one asked for. */
const verify = (path: string, ...args: string[]) => runCli(["verify", path, "--outcome", "failed", ...args]);

describe("stagewatch verify", () => {
  it("a verdict file as observe --verdict-file writes it: exit 0, saying what was checked", async () => {
    const result = await verify(file(signed), "--verify-key", newKey.publicKey);
    expect(result).toEqual({
      status: 0,
      stdout: `valid: observation ${verdict.observationId}, deployment payments, key ci-4812/payments, tenant (none), namespaces payments: failed, decided at 2026-11-29T10:00:41Z (signed by ${newKey.publicKey})\n`,
      stderr: "",
    });
  });

  it("whatever the member order and white space", async () => {
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(signed).reverse()));
    expect((await verify(file(reordered), "--verify-key", newKey.publicKey)).status).toBe(0);
  });

  it("observe --json output, whose `verified` member is observe's own note", async () => {
    expect((await verify(file({ ...signed, verified: true }), "--verify-key", newKey.publicKey)).status).toBe(0);
    expect((await verify(file({ ...signed, verified: true, mode: "service" }), "--verify-key", newKey.publicKey)).status).toBe(0);
  });

  it("'-': standard input", async () => {
    expect((await runCli(["verify", "-", "--outcome", "failed", "--verify-key", newKey.publicKey], { stdin: JSON.stringify(signed) })).status).toBe(0);
  });

  it("a verdict event as read from the stream", async () => {
    const event = signBody({ type: "verdict", observationId: verdict.observationId, deployment: "payments", at: verdict.decidedAt, verdict: signed }, newKey);
    expect((await verify(file(event), "--verify-key", newKey.publicKey)).status).toBe(0);
  });

  it("the key from $STAGEWATCH_VERIFY_KEY, and during a rotation either of two", async () => {
    expect((await runCli(["verify", file(signed), "--outcome=failed"], { env: { STAGEWATCH_VERIFY_KEY: newKey.publicKey } })).status).toBe(0);
    const byOld = file(signBody(verdict, oldKey));
    expect((await runCli(["verify", byOld, "--outcome=failed"], { env: { STAGEWATCH_VERIFY_KEY: `${newKey.publicKey},${oldKey.publicKey}` } })).status).toBe(0);
    expect((await verify(byOld, "--verify-key", newKey.publicKey, "--verify-key", oldKey.publicKey)).status).toBe(0);
  });

  it.each([
    ["a changed outcome", () => ({ ...signed, outcome: "succeeded" }), "does not match the content"],
    ["signed by the old key, checked with the new one only", () => signBody(verdict, oldKey), `signed by ${oldKey.publicKey}, not a key trusted here`],
    ["no signature", () => verdict, "no signature"],
    ["observe's note that is not observe's (a string)", () => ({ ...signed, verified: "yes" }), "does not match the content"],
    ["a mode observe never writes", () => ({ ...signed, mode: "trusted" }), "does not match the content"],
  ])("%s: exit 1", async (_, content, message) => {
    const result = await verify(file(content()), "--verify-key", newKey.publicKey);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^invalid: .*\n$/);
    expect(result.stdout).toContain(message);
  });

  it.each([
    ["no such file", () => [join(dir, "missing.json"), "--verify-key", newKey.publicKey], "cannot read"],
    ["not JSON", () => [file("verdict: failed"), "--verify-key", newKey.publicKey], "is not JSON"],
    ["not a verdict", () => [file({ outcome: "failed" }), "--verify-key", newKey.publicKey], "not a verdict: observationId: required"],
    ["no key", () => [file(signed)], "no key to verify with"],
    ["a key that is no public key", () => [file(signed), "--verify-key", "SNAGJSASU"], "--verify-key: \"SNAGJSASU\" is not an nkeys server public key"],
    ["the public key under --key, as before the bindings", () => [file(signed), "--key", newKey.publicKey], "--key is the verdict's idempotency key; give the service's public key with --verify-key"],
    ["an outcome that is none", () => [file(signed), "--verify-key", newKey.publicKey, "--outcome", "passed"], "--outcome: must be one of in_progress, succeeded, failed, timed_out, cancelled, any"],
    ["a max age that is no duration", () => [file(signed), "--verify-key", newKey.publicKey, "--max-age", "soon"], "--max-age: 'soon' is not a duration"],
    ["two files", () => [file(signed), file(signed), "--verify-key", newKey.publicKey], "expected one FILE, got 2"],
  ])("%s: exit 2", async (_, args, message) => {
    const result = await runCli(["verify", ...args()]);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe("stagewatch verify: what the verdict must be about", () => {
  // A genuinely signed success of TEAM_A's, decided ten minutes ago: what one team could keep, and
  // what another team's job must not take for its own.
  const decidedAt = new Date(Date.now() - 10 * 60_000).toISOString();
  const success = signBody(
    {
      ...verdict,
      outcome: "succeeded" as const,
      reached: "healthy" as const,
      failure: undefined,
      resources: [{ identity: verdict.resources[0]!.identity, state: "settled" as const }],
      message: "deployment payments reached healthy: 1 resource settled",
      tenant: "TEAM_A",
      decidedAt,
    },
    newKey,
  );
  let successFile: string;
  const check = (...args: string[]) => runCli(["verify", (successFile ??= file(success)), "--verify-key", newKey.publicKey, ...args]);

  it("every binding met: exit 0, printing the tenant, the namespaces and the decision time", async () => {
    const result = await check("--outcome", "succeeded", "--key", "ci-4812/payments", "--deployment", "payments", "--tenant", "TEAM_A", "--max-age", "1h");
    expect(result).toEqual({
      status: 0,
      stdout: `valid: observation ${verdict.observationId}, deployment payments, key ci-4812/payments, tenant TEAM_A, namespaces payments: succeeded, decided at ${decidedAt} (signed by ${newKey.publicKey})\n`,
      stderr: "",
    });
  });

  it("no binding given: the outcome must still be succeeded", async () => {
    expect((await check()).status).toBe(0);
    const failed = await runCli(["verify", file(signed), "--verify-key", newKey.publicKey]);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe(
      `mismatch: observation ${verdict.observationId}, deployment payments, key ci-4812/payments, tenant (none), namespaces payments: failed, decided at 2026-11-29T10:00:41Z (signed by ${newKey.publicKey})\n  outcome: "failed", not "succeeded"\n`,
    );
    expect((await runCli(["verify", file(signed), "--verify-key", newKey.publicKey, "--outcome", "any"])).status).toBe(0);
  });

  it.each([
    ["--outcome", ["--outcome", "failed"], 'outcome: "succeeded", not "failed"'],
    ["--key", ["--key", "ci-4813/payments"], 'key: "ci-4812/payments", not "ci-4813/payments"'],
    ["--deployment", ["--deployment", "api"], 'deployment: "payments", not "api"'],
    ["--tenant", ["--tenant", "TEAM_B"], 'tenant: "TEAM_A", not "TEAM_B"'],
    ["--max-age", ["--max-age", "5m"], /^max-age: decided 6\d\d s ago, more than 300 s$/],
  ])("%s not met: exit 1, naming it", async (_, args, line) => {
    const result = await check(...args);
    expect(result.status).toBe(1);
    const [first, ...unmet] = result.stdout.trimEnd().split("\n");
    expect(first).toMatch(/^mismatch: observation /);
    expect(unmet).toHaveLength(1);
    expect(unmet[0]!.trim()).toMatch(line);
  });

  it("several not met: one line each", async () => {
    const result = await check("--tenant", "TEAM_B", "--deployment", "api", "--outcome", "failed");
    expect(result.status).toBe(1);
    expect(result.stdout.split("\n").slice(1, -1)).toEqual(['  outcome: "succeeded", not "failed"', '  deployment: "payments", not "api"', '  tenant: "TEAM_A", not "TEAM_B"']);
  });

  it("--tenant against a verdict of a service without tenants: no tenant is not a match", async () => {
    const result = await runCli(["verify", file(signed), "--verify-key", newKey.publicKey, "--outcome", "failed", "--tenant", "TEAM_A"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('  tenant: none, not "TEAM_A"\n');
  });

  it("--max-age of a verdict not decided: no age, no match", async () => {
    const undecided = signBody({ ...verdict, outcome: "in_progress" as const, failure: undefined, decidedAt: undefined }, newKey);
    const result = await runCli(["verify", file(undecided), "--verify-key", newKey.publicKey, "--outcome", "in_progress", "--max-age", "1h"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("  max-age: not decided, so no age\n");
  });

  it("a binding is checked only on a valid signature: an altered tenant is invalid, not a match", async () => {
    const result = await runCli(["verify", file({ ...success, tenant: "TEAM_B" }), "--verify-key", newKey.publicKey, "--tenant", "TEAM_B"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^invalid: .*does not match the content/);
  });
});

describe("stagewatch verify of an in-toto attestation (what observe --verdict-file writes by default)", () => {
  const attested = serviceSigner(newKey, [], "prod-eu-1").signVerdict(succeededVerdict);
  const evidence = verdictEvidence(attested);
  if (evidence.form !== "attestation") throw new Error(`no attestation: ${evidence.why}`);
  const envelope = evidence.body;
  const subjects = `docker.io/library/envoy@sha256:${sidecarImage.split(":").at(-1)}, registry.example/payments/api@sha256:${apiImage.split(":").at(-1)}`;

  it("checks the envelope and binds its predicate: exit 0, naming the subjects", async () => {
    const result = await runCli(["verify", file(envelope), "--verify-key", newKey.publicKey, "--key", "ci-4812/payments", "--deployment", "payments"]);
    expect(result).toEqual({
      status: 0,
      stdout: `valid: observation ${verdict.observationId}, deployment payments, key ci-4812/payments, tenant (none), namespaces payments: succeeded, decided at 2026-11-29T10:00:41Z (signed by ${newKey.publicKey}, in-toto attestation of ${subjects})\n`,
      stderr: "",
    });
  });

  it("a binding the predicate does not meet: exit 1", async () => {
    const result = await runCli(["verify", file(envelope), "--verify-key", newKey.publicKey, "--deployment", "billing"]);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('  deployment: "payments", not "billing"\n');
  });

  it.each([
    ["another key", () => envelope, oldKey.publicKey],
    ["a tampered payload", () => ({ ...envelope, payload: Buffer.from(Buffer.from(envelope.payload, "base64").toString().replace('"succeeded"', '"failed"')).toString("base64") }), newKey.publicKey],
  ])("%s: invalid, exit 1", async (_, body, key) => {
    const result = await runCli(["verify", file(body()), "--outcome", "any", "--verify-key", key]);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^invalid: no signature of the envelope verifies with /);
  });

  it("an envelope without signatures is bad input: exit 2", async () => {
    const result = await runCli(["verify", file({ ...envelope, signatures: [] }), "--verify-key", newKey.publicKey]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("not a verdict: not a DSSE envelope");
  });
});

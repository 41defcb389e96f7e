import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signBody } from "../signing/index.js";
import { newKey, oldKey } from "../signing/testing/keys.js";
import { failedVerdict } from "../../test/fixtures/verdicts.js";
import { runCli } from "./testing/runCli.js";

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
const verify = (path: string, ...args: string[]) => runCli(["verify", path, ...args]);

describe("stagewatch verify", () => {
  it("a verdict file as observe --verdict-file writes it: exit 0, saying what was checked", async () => {
    const result = await verify(file(signed), "--key", newKey.publicKey);
    expect(result).toEqual({
      status: 0,
      stdout: `valid: observation ${verdict.observationId}, deployment payments, key ci-4812/payments: failed (signed by ${newKey.publicKey})\n`,
      stderr: "",
    });
  });

  it("whatever the member order and white space", async () => {
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(signed).reverse()));
    expect((await verify(file(reordered), "--key", newKey.publicKey)).status).toBe(0);
  });

  it("observe --json output, whose `verified` member is observe's own note", async () => {
    expect((await verify(file({ ...signed, verified: true }), "--key", newKey.publicKey)).status).toBe(0);
    expect((await verify(file({ ...signed, verified: true, mode: "service" }), "--key", newKey.publicKey)).status).toBe(0);
  });

  it("'-': standard input", async () => {
    expect((await runCli(["verify", "-", "--key", newKey.publicKey], { stdin: JSON.stringify(signed) })).status).toBe(0);
  });

  it("a verdict event as read from the stream", async () => {
    const event = signBody({ type: "verdict", observationId: verdict.observationId, deployment: "payments", at: verdict.decidedAt, verdict: signed }, newKey);
    expect((await verify(file(event), "--key", newKey.publicKey)).status).toBe(0);
  });

  it("the key from $STAGEWATCH_VERIFY_KEY, and during a rotation either of two", async () => {
    expect((await runCli(["verify", file(signed)], { env: { STAGEWATCH_VERIFY_KEY: newKey.publicKey } })).status).toBe(0);
    const byOld = file(signBody(verdict, oldKey));
    expect((await runCli(["verify", byOld], { env: { STAGEWATCH_VERIFY_KEY: `${newKey.publicKey},${oldKey.publicKey}` } })).status).toBe(0);
    expect((await verify(byOld, "--key", newKey.publicKey, "--key", oldKey.publicKey)).status).toBe(0);
  });

  it.each([
    ["a changed outcome", () => ({ ...signed, outcome: "succeeded" }), "does not match the content"],
    ["signed by the old key, checked with the new one only", () => signBody(verdict, oldKey), `signed by ${oldKey.publicKey}, not a key trusted here`],
    ["no signature", () => verdict, "no signature"],
    ["observe's note that is not observe's (a string)", () => ({ ...signed, verified: "yes" }), "does not match the content"],
    ["a mode observe never writes", () => ({ ...signed, mode: "trusted" }), "does not match the content"],
  ])("%s: exit 1", async (_, content, message) => {
    const result = await verify(file(content()), "--key", newKey.publicKey);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^invalid: .*\n$/);
    expect(result.stdout).toContain(message);
  });

  it.each([
    ["no such file", () => [join(dir, "missing.json"), "--key", newKey.publicKey], "cannot read"],
    ["not JSON", () => [file("verdict: failed"), "--key", newKey.publicKey], "is not JSON"],
    ["not a verdict", () => [file({ outcome: "failed" }), "--key", newKey.publicKey], "not a verdict: observationId: required"],
    ["no key", () => [file(signed)], "no key to verify with"],
    ["a key that is no public key", () => [file(signed), "--key", "SNAGJSASU"], "--key: \"SNAGJSASU\" is not an nkeys server public key"],
    ["two files", () => [file(signed), file(signed), "--key", newKey.publicKey], "expected one FILE, got 2"],
  ])("%s: exit 2", async (_, args, message) => {
    const result = await runCli(["verify", ...args()]);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

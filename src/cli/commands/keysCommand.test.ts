import { createPublicKey, verify } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { signingKeyFromSeed } from "../../signing/index.js";
import { newKey, oldKey } from "../../signing/testing/keys.js";
import { runCli } from "../testing/runCli.js";

const dir = mkdtempSync(join(tmpdir(), "stagewatch-keys-"));

describe("stagewatch keys", () => {
  it("create writes a seed only its owner reads and prints its public key; show prints it again", async () => {
    const path = join(dir, "signing.nk");
    const created = await runCli(["keys", "create", path]);
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(/^N[A-Z2-7]{55}\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(`${signingKeyFromSeed(readFileSync(path, "utf8")).publicKey}\n`).toBe(created.stdout);
    expect(await runCli(["keys", "show", path])).toEqual({ status: 0, stdout: created.stdout, stderr: "" });
  });

  it("pem prints the public key as a PEM SubjectPublicKeyInfo that verifies the key's signatures (what openssl, cosign and go-securesystemslib read)", async () => {
    const result = await runCli(["keys", "pem", oldKey.publicKey]);
    expect(result).toMatchObject({ status: 0, stderr: "" });
    expect(result.stdout).toBe("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA698m+ZGgO2MKadr0mcxIJLH7B+uEW6SMZsU+GjXO64M=\n-----END PUBLIC KEY-----\n");
    const content = Buffer.from("verdict");
    expect(verify(null, content, createPublicKey(result.stdout), oldKey.sign(content))).toBe(true);
    expect(verify(null, content, createPublicKey(result.stdout), newKey.sign(content))).toBe(false);
  });

  it("never overwrites an existing file: a seed in use stays", async () => {
    const path = join(dir, "in-use.nk");
    await runCli(["keys", "create", path]);
    const before = readFileSync(path, "utf8");
    const again = await runCli(["keys", "create", path]);
    expect(again.status).toBe(2);
    expect(again.stderr).toContain(`keys create: cannot write ${path}`);
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it.each([
    ["show of a file without a seed", () => ["show", writeAndName("not-a-seed.nk", "hello\n")], "holds not an nkeys seed"],
    ["show of a missing file", () => ["show", join(dir, "missing.nk")], "cannot read"],
    ["pem of something not a public key", () => ["pem", "SNAGJSASU63H5TXINTPNIAPENPI4LXAOF4LT7DK47YJH4URULEGGNWQFPE"], "keys pem: \"SNAG"],
    ["no action", () => [], "expected 'keys create FILE', 'keys show FILE' or 'keys pem KEY'"],
    ["an unknown action", () => ["rotate", join(dir, "x.nk")], "expected 'keys create FILE', 'keys show FILE' or 'keys pem KEY'"],
  ])("%s: exit 2", async (_, args, message) => {
    const result = await runCli(["keys", ...args()]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

function writeAndName(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

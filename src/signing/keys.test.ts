import { fromPublic, fromSeed } from "@nats-io/nkeys";
import { describe, expect, it } from "vitest";
import { newSigningSeed, SigningKeyError, signingKeyFromSeed, verifyKeyOf, verifyKeysFromEnv, verifyKeysOf } from "./keys.js";
import { newKey, oldKey, userSeed } from "./testing/keys.js";

const content = new TextEncoder().encode('{"outcome":"failed"}');

describe("signing keys in the nkeys format", () => {
  it("a new seed loads, and its public key is the one printed", () => {
    const { seed, publicKey } = newSigningSeed();
    expect(seed).toMatch(/^SN[A-Z2-7]{56}$/);
    expect(publicKey).toMatch(/^N[A-Z2-7]{55}$/);
    expect(signingKeyFromSeed(`${seed}\n`).publicKey).toBe(publicKey);
  });

  it("signs as nkeys does: its own verify accepts the signature, and its public key is nkeys'", () => {
    const seed = "SNAGJSASU63H5TXINTPNIAPENPI4LXAOF4LT7DK47YJH4URULEGGNWQFPE";
    const pair = fromSeed(new TextEncoder().encode(seed));
    expect(oldKey.publicKey).toBe(pair.getPublicKey());
    const signature = oldKey.sign(content);
    expect(Buffer.from(signature)).toEqual(Buffer.from(pair.sign(content)));
    expect(fromPublic(oldKey.publicKey).verify(content, signature)).toBe(true);
  });

  it("a public key verifies its own key's signatures only", () => {
    const verifier = verifyKeyOf(oldKey.publicKey);
    expect(verifier.verify(content, oldKey.sign(content))).toBe(true);
    expect(verifier.verify(content, newKey.sign(content))).toBe(false);
    expect(verifier.verify(new TextEncoder().encode('{"outcome":"succeeded"}'), oldKey.sign(content))).toBe(false);
    expect(verifier.verify(content, new Uint8Array(12))).toBe(false);
  });

  it.each([
    ["not a seed", "hello"],
    ["a NATS user's seed", userSeed],
    ["a seed with a wrong checksum", "SNAGJSASU63H5TXINTPNIAPENPI4LXAOF4LT7DK47YJH4URULEGGNWQFPA"],
  ])("refuses %s", (_, seed) => {
    expect(() => signingKeyFromSeed(seed)).toThrow(SigningKeyError);
  });

  it.each([
    ["a seed instead of the public key", "SNAGJSASU63H5TXINTPNIAPENPI4LXAOF4LT7DK47YJH4URULEGGNWQFPE"],
    ["a user's public key", "UB2AKA6PNSXHW4QZSZHICRZ2BUTBYS5E5S42BX7JCUVOSL77TNHVWJQS"],
    ["a mistyped public key", `${oldKey.publicKey.slice(0, -1)}A`],
  ])("refuses %s as a public key", (_, key) => {
    expect(() => verifyKeyOf(key)).toThrow(SigningKeyError);
  });

  it("reads a list of public keys, comma or white space separated (a rotation's overlap)", () => {
    expect(verifyKeysOf(` ${newKey.publicKey},\n${oldKey.publicKey} `).map((key) => key.publicKey)).toEqual([newKey.publicKey, oldKey.publicKey]);
    expect(verifyKeysOf("")).toEqual([]);
  });

  it("reads $STAGEWATCH_VERIFY_KEY, naming it when a key in it is wrong", () => {
    expect(verifyKeysFromEnv({ STAGEWATCH_VERIFY_KEY: newKey.publicKey }).map((key) => key.publicKey)).toEqual([newKey.publicKey]);
    expect(verifyKeysFromEnv({})).toEqual([]);
    expect(() => verifyKeysFromEnv({ STAGEWATCH_VERIFY_KEY: "nope" })).toThrow(/^STAGEWATCH_VERIFY_KEY: "nope" is not an nkeys server public key/);
  });
});

import { describe, expect, it } from "vitest";
import { failedVerdict } from "../../test/fixtures/verdicts.js";
import type { ObservationVerdict } from "../verdicts/contract/schemas.js";
import { signedContent } from "./canonicalForm.js";
import { verifyKeyOf } from "./keys.js";
import { signBody, verifyBody } from "./signature.js";
import { newKey, oldKey } from "./testing/keys.js";

const verdict = failedVerdict;
const trusted = [oldKey.verifyKey];
/** What a reader gets: the body as it travelled, written and parsed again. */
const travelled = <T>(body: T): T => JSON.parse(JSON.stringify(body, null, 2)) as T;

describe("signBody and verifyBody", () => {
  it("a signed verdict verifies after travelling as JSON", () => {
    const signed = signBody(verdict, oldKey);
    expect(signed.signature.key).toBe(oldKey.publicKey);
    expect(verifyBody(travelled(signed), trusted)).toEqual({ valid: true, key: oldKey.publicKey });
  });

  it("verifies whatever the order of its members", () => {
    const signed = signBody(verdict, oldKey);
    const reordered = Object.fromEntries(Object.entries(travelled(signed)).reverse());
    expect(verifyBody(reordered, trusted).valid).toBe(true);
  });

  it("signing again gives the same signature (what makes a re-sent event the same message)", () => {
    const once = signBody(verdict, oldKey);
    expect(signBody(once, oldKey).signature).toEqual(once.signature);
  });

  it.each([
    ["the outcome", (v: ObservationVerdict) => ({ ...v, outcome: "succeeded" })],
    ["a nested field (a resource's state)", (v: ObservationVerdict) => ({ ...v, resources: [{ ...v.resources[0]!, state: "settled" }] })],
    ["an added member", (v: ObservationVerdict) => ({ ...v, note: "all good" })],
    ["a removed member", ({ failure: _, ...v }: ObservationVerdict) => v],
  ])("a tampered verdict (%s) does not verify", (_, tamper) => {
    const signed = signBody(verdict, oldKey);
    const result = verifyBody({ ...tamper(signed), signature: signed.signature }, trusted);
    expect(result).toMatchObject({ valid: false, problem: "bad signature" });
  });

  it("a signature by a key not trusted here does not verify", () => {
    expect(verifyBody(signBody(verdict, newKey), trusted)).toMatchObject({ valid: false, problem: "unknown key" });
  });

  it("a forger naming the trusted key with a signature of its own does not verify", () => {
    const forged = { ...verdict, outcome: "succeeded", signature: { ...signBody(verdict, newKey).signature, key: oldKey.publicKey } };
    expect(verifyBody(forged, trusted)).toMatchObject({ valid: false, problem: "bad signature" });
  });

  it("an unsigned verdict does not verify", () => {
    expect(verifyBody(verdict, trusted)).toMatchObject({ valid: false, problem: "unsigned" });
  });

  it.each([
    ["a string", "verdict"],
    ["null", null],
    ["an array", [verdict]],
    ["a signature of the wrong shape", { ...verdict, signature: "abc" }],
    ["a signature too short", { ...verdict, signature: { key: oldKey.publicKey, sig: "AAAA" } }],
  ])("%s is malformed", (_, body) => {
    expect(verifyBody(body, trusted)).toMatchObject({ valid: false, problem: "malformed" });
  });

  describe("key rotation", () => {
    const byOld = signBody(verdict, oldKey);
    const byNew = signBody(verdict, newKey);

    it("a verdict signed by the old key fails with only the new key", () => {
      expect(verifyBody(byOld, [verifyKeyOf(newKey.publicKey)])).toMatchObject({ valid: false, problem: "unknown key" });
    });

    it("given both keys for the overlap, a reader accepts either, and says which signed", () => {
      const both = [verifyKeyOf(newKey.publicKey), verifyKeyOf(oldKey.publicKey)];
      expect(verifyBody(byOld, both)).toEqual({ valid: true, key: oldKey.publicKey });
      expect(verifyBody(byNew, both)).toEqual({ valid: true, key: newKey.publicKey });
    });
  });

  // A vector for implementations in other languages (docs/user/verifying.md, "A known answer"):
  // this body, signed with the test seed of src/signing/testing/keys.ts (oldKey), gives exactly
  // this signature.
  it("a known answer", () => {
    const body = { b: [1, "é", 1.5], a: { z: true, y: null } };
    expect(signedContent(body).toString("utf8")).toBe('{"a":{"y":null,"z":true},"b":[1,"é",1.5]}');
    expect(signBody(body, oldKey).signature).toEqual({
      key: "NDV56JXZSGQDWYYKNHNPJGOMJASLD6YH5OCFXJEMM3CT4GRVZ3VYGRTQ",
      sig: "FdSGXqPHwax3rsswnXtkl9YIPy2sJsv2ZsDCLQL1XH8_bWVl_xQwG6XJH-m4S4xHozUaGvH0t9W90sCLsN3jAA",
    });
  });
});

import { describe, expect, it } from "vitest";
import { dsseEnvelope, dsseSignature, preAuthEncoding, verifyEnvelope } from "./dsse.js";
import { newKey, oldKey } from "./testing/keys.js";

const payloadType = "http://example.com/HelloWorld";
const payload = Buffer.from("hello world");

describe("DSSE", () => {
  // The worked example of DSSE's protocol.md ("Test vectors"): lengths in bytes, ASCII decimal.
  it("encodes as the specification's example", () => {
    expect(preAuthEncoding(payloadType, payload).toString("utf8")).toBe("DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  });

  it("counts bytes, not characters", () => {
    expect(preAuthEncoding("t/é", Buffer.from("€", "utf8")).toString("utf8")).toBe("DSSEv1 4 t/é 3 €");
  });

  it("an envelope verifies with its signer's key and says which", () => {
    const envelope = dsseEnvelope(payloadType, payload, dsseSignature(payloadType, payload, oldKey));
    const verification = verifyEnvelope(JSON.parse(JSON.stringify(envelope)), [newKey.verifyKey, oldKey.verifyKey]);
    expect(verification).toMatchObject({ valid: true, key: oldKey.publicKey, payloadType });
    expect(verification.valid && verification.payload.toString()).toBe("hello world");
  });

  it("a URL-safe payload (DSSE allows either alphabet) verifies as well", () => {
    const envelope = dsseEnvelope(payloadType, payload, dsseSignature(payloadType, payload, oldKey));
    expect(verifyEnvelope({ ...envelope, payload: payload.toString("base64url") }, [oldKey.verifyKey]).valid).toBe(true);
  });

  it.each([
    ["another payload", { payload: Buffer.from("hello World").toString("base64") }],
    ["another payload type (the type is signed too)", { payloadType: "http://example.com/Other" }],
  ])("refuses %s under the same signature", (_, change) => {
    const envelope = dsseEnvelope(payloadType, payload, dsseSignature(payloadType, payload, oldKey));
    expect(verifyEnvelope({ ...envelope, ...change }, [oldKey.verifyKey])).toMatchObject({ valid: false, problem: "bad signature" });
  });

  it("refuses a key that did not sign", () => {
    const envelope = dsseEnvelope(payloadType, payload, dsseSignature(payloadType, payload, oldKey));
    expect(verifyEnvelope(envelope, [newKey.verifyKey])).toMatchObject({ valid: false, problem: "bad signature" });
  });

  it.each([
    ["not an object", "envelope"],
    ["no signatures", { payloadType, payload: payload.toString("base64"), signatures: [] }],
    ["a payload that is not base64", { payloadType, payload: "hello world!", signatures: [{ sig: "AAAA" }] }],
  ])("%s is malformed", (_, envelope) => {
    expect(verifyEnvelope(envelope, [oldKey.verifyKey])).toMatchObject({ valid: false, problem: "malformed" });
  });
});

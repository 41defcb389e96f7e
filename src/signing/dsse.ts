// DSSE, the Dead Simple Signing Envelope (github.com/secure-systems-lab/dsse, protocol.md and
// envelope.md): the signature covers the pre-authentication encoding of the payload type and the
// payload bytes, never the JSON of the envelope, so a reader needs no canonical form: it decodes
// the payload and checks the signature over exactly those bytes, then parses them.
//
//   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
//
// LEN is the length in bytes as ASCII decimal, SP a space. Encoding the type's length keeps a
// signature over one payload type from being read as one over another.
import { DsseEnvelope } from "../verdicts/contract/attestation.js";
import type { SigningKey, VerifyKey } from "./keys.js";

/** DSSE's pre-authentication encoding: the bytes a DSSE signature covers. */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, "utf8");
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `, "ascii"), type, Buffer.from(` ${payload.length} `, "ascii"), payload]);
}

/** The standard-base64 Ed25519 signature by `key` of `payload` under `payloadType`. */
export function dsseSignature(payloadType: string, payload: Uint8Array, key: SigningKey): string {
  return Buffer.from(key.sign(preAuthEncoding(payloadType, payload))).toString("base64");
}

/**
 * The envelope of one signature. `keyid` is empty: DSSE makes it an optional, unauthenticated hint,
 * and a reader that computes ids of its own (go-securesystemslib's, a SHA-256 of the key in its
 * format) skips a key whose id differs from a non-empty hint, so any id would turn verifiers away.
 */
export function dsseEnvelope(payloadType: string, payload: Uint8Array, sig: string): DsseEnvelope {
  return { payloadType, payload: Buffer.from(payload).toString("base64"), signatures: [{ keyid: "", sig }] };
}

export type EnvelopeVerification =
  | { valid: true; key: string; payloadType: string; payload: Buffer }
  | { valid: false; problem: "malformed" | "bad signature"; message: string };

// DSSE writes base64 standard or URL-safe, padded or not; anything else is not a payload.
const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Whether a signature of `envelope` verifies with one of `keys`; then its payload, decoded. */
export function verifyEnvelope(envelope: unknown, keys: readonly VerifyKey[]): EnvelopeVerification {
  const parsed = DsseEnvelope.safeParse(envelope);
  if (!parsed.success) return { valid: false, problem: "malformed", message: "not a DSSE envelope {payloadType, payload, signatures}" };
  const { payloadType, payload: encoded, signatures } = parsed.data;
  if (!base64.test(encoded)) return { valid: false, problem: "malformed", message: "a payload that is not base64" };
  const payload = Buffer.from(encoded, "base64");
  const signed = preAuthEncoding(payloadType, payload);
  for (const { sig } of signatures) {
    if (!base64.test(sig)) continue;
    const bytes = Buffer.from(sig, "base64");
    const key = keys.find((candidate) => candidate.verify(signed, bytes));
    if (key) return { valid: true, key: key.publicKey, payloadType, payload };
  }
  return { valid: false, problem: "bad signature", message: `no signature of the envelope verifies with ${keys.map((key) => key.publicKey).join(", ")}` };
}

// The service's key pair in the NATS ecosystem's nkeys format: a seed (`SN…`, the secret) in a
// file only the service reads, and its public key (`N…`) handed to clients. Only server keys are
// accepted, so a NATS user's or account's credentials can never be mistaken for the service's
// signing key, or the reverse.
//
// nkeys parses and writes the format (prefix, base32, checksum); the Ed25519 operations run in
// Node's crypto, which is over a hundred times faster than the pure JavaScript nacl nkeys signs
// with (measured: 0.13 ms against 26 ms for a 2 KB event), and every event and record write of
// the service is signed. Ed25519 is deterministic, so both produce the same signatures.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { createServer, Prefix } from "@nats-io/nkeys";
// The codec is not part of nkeys' documented API, but it is the one place that decodes a key to
// its 32 raw bytes, checksum and prefix checked; re-implementing base32 and CRC-16 here would be
// a second copy of it.
import { Codec } from "@nats-io/nkeys/lib/codec.js";

export class SigningKeyError extends Error {
  override readonly name = "SigningKeyError";
}

/** A public key whose signatures a reader accepts. */
export interface VerifyKey {
  /** The nkeys public key, `N` and 55 more characters. */
  readonly publicKey: string;
  /**
   * The same key as a PEM `PUBLIC KEY` (an X.509 SubjectPublicKeyInfo, RFC 8410): the form
   * standard verifiers read (cosign's --key, go-securesystemslib's LoadKey, openssl).
   */
  readonly pem: string;
  verify(content: Uint8Array, signature: Uint8Array): boolean;
}

/** The service's key pair, loaded from its seed. */
export interface SigningKey {
  readonly publicKey: string;
  readonly verifyKey: VerifyKey;
  /** The 64-byte Ed25519 signature of `content`. */
  sign(content: Uint8Array): Uint8Array;
}

/** Where clients, `observe`, `get`, `cancel`, `verify` and `serve` (for rotation) read the public keys they trust. */
export const verifyKeyVariable = "STAGEWATCH_VERIFY_KEY";

// RFC 8410: an Ed25519 private key's PKCS #8 wrapping, followed by the 32-byte seed.
const pkcs8Ed25519Prefix = Buffer.from("302e020100300506032b657004220420", "hex");

const text = new TextEncoder();
const fromText = new TextDecoder();

function verifyKeyFrom(publicKey: string, keyObject: KeyObject): VerifyKey {
  return {
    publicKey,
    pem: keyObject.export({ type: "spki", format: "pem" }).toString(),
    verify: (content, signature) => signature.length === 64 && verify(null, content, keyObject, signature),
  };
}

/** The key pair of a seed as `stagewatch keys create` writes it (surrounding white space ignored). */
export function signingKeyFromSeed(seed: string): SigningKey {
  let decoded: { prefix: Prefix; buf: Uint8Array };
  try {
    decoded = Codec.decodeSeed(text.encode(seed.trim()));
  } catch (cause) {
    throw new SigningKeyError("not an nkeys seed (SN followed by 56 base32 characters)", { cause });
  }
  if (decoded.prefix !== Prefix.Server) throw new SigningKeyError("an nkeys seed of another kind: stagewatch signs with a server key (its seed starts with SN)");
  if (decoded.buf.length !== 32) throw new SigningKeyError("an nkeys seed of the wrong length");
  const privateKey = createPrivateKey({ key: Buffer.concat([pkcs8Ed25519Prefix, decoded.buf]), format: "der", type: "pkcs8" });
  const publicKeyObject = createPublicKey(privateKey);
  const rawPublic = Buffer.from(publicKeyObject.export({ format: "jwk" }).x!, "base64url");
  const publicKey = fromText.decode(Codec.encode(Prefix.Server, new Uint8Array(rawPublic)));
  return {
    publicKey,
    verifyKey: verifyKeyFrom(publicKey, publicKeyObject),
    sign: (content) => sign(null, content, privateKey),
  };
}

/** One public key as an operator pastes it (`N…`). */
export function verifyKeyOf(publicKey: string): VerifyKey {
  let raw: Uint8Array;
  try {
    raw = Codec.decode(Prefix.Server, text.encode(publicKey));
  } catch (cause) {
    throw new SigningKeyError(`${JSON.stringify(publicKey)} is not an nkeys server public key (N followed by 55 base32 characters)`, { cause });
  }
  if (raw.length !== 32) throw new SigningKeyError(`${JSON.stringify(publicKey)} has the wrong length for an Ed25519 public key`);
  const keyObject = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") }, format: "jwk" });
  return verifyKeyFrom(publicKey, keyObject);
}

/**
 * A list of public keys, separated by commas or white space: during a rotation clients are given
 * the new key and the old one, so verdicts signed before the switch still verify.
 */
export function verifyKeysOf(list: string): VerifyKey[] {
  return list
    .split(/[\s,]+/)
    .filter((key) => key !== "")
    .map(verifyKeyOf);
}

/** The keys $STAGEWATCH_VERIFY_KEY names; none when it is unset or empty. */
export function verifyKeysFromEnv(env: NodeJS.ProcessEnv): VerifyKey[] {
  try {
    return verifyKeysOf(env[verifyKeyVariable] ?? "");
  } catch (cause) {
    throw new SigningKeyError(`${verifyKeyVariable}: ${(cause as Error).message}`, { cause });
  }
}

/** A new key pair: the seed to keep secret and the public key to publish. */
export function newSigningSeed(): { seed: string; publicKey: string } {
  const pair = createServer();
  return { seed: fromText.decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

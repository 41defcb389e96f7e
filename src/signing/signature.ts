// Signing a body and checking one: the signature is a member of the body itself (`signature:
// {key, sig}`), so a body carries its evidence wherever it is copied (a KV record, a `get`
// answer, a CI artifact) and a reader needs nothing but the body and the public keys it trusts.
import { Signature } from "../verdicts/contract/schemas.js";
import { signatureMember, signedContent } from "./canonicalForm.js";
import type { SigningKey, VerifyKey } from "./keys.js";

/** Why a body does not verify. */
export type SignatureProblem = "unsigned" | "malformed" | "unknown key" | "bad signature";

export type Verification = { valid: true; key: string } | { valid: false; problem: SignatureProblem; message: string };

/** `body` with its signature by `key` (any signature it carried replaced). */
export function signBody<T extends object>(body: T, key: SigningKey): T & { signature: Signature } {
  const sig = Buffer.from(key.sign(signedContent(body))).toString("base64url");
  return { ...body, [signatureMember]: { key: key.publicKey, sig } };
}

const invalid = (problem: SignatureProblem, message: string): Verification => ({ valid: false, problem, message });

/** Whether `body` carries a signature by one of `keys` over its content as it stands. */
export function verifyBody(body: unknown, keys: readonly VerifyKey[]): Verification {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return invalid("malformed", "not a JSON object");
  const claimed: unknown = (body as Record<string, unknown>)[signatureMember];
  if (claimed === undefined) return invalid("unsigned", "no signature");
  const parsed = Signature.safeParse(claimed);
  if (!parsed.success) return invalid("malformed", "a signature that is not {key, sig}");
  const { key, sig } = parsed.data;
  const trusted = keys.find((candidate) => candidate.publicKey === key);
  if (!trusted) return invalid("unknown key", `signed by ${key}, not a key trusted here`);
  if (!trusted.verify(signedContent(body), Buffer.from(sig, "base64url"))) {
    return invalid("bad signature", `the signature by ${key} does not match the content`);
  }
  return { valid: true, key };
}

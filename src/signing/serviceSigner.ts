// The service's side: what it signs with, and what it stands by when it finds a verdict it did not
// just decide (a decided record to republish after adopting it, the stream's last event of an
// observation). It trusts its own key and the keys it is told to keep trusting during a rotation,
// since a replica still on the old key may have written the record. It never signs a verdict it
// read back: a record someone else wrote must not come out under the service's name.
import type { ClusterName, ObservationVerdict, Signature } from "../verdicts/contract/schemas.js";
import { attestVerdict } from "./attestation.js";
import type { SigningKey, VerifyKey } from "./keys.js";
import { signBody } from "./signature.js";
import { checkEvent, checkVerdict, type Trust } from "./trust.js";

export interface ServiceSigner {
  /** The public key verdicts and events are signed with; undefined when the service signs nothing. */
  readonly publicKey: string | undefined;
  /** Every key it trusts, its own first (then a rotation's previous one): what it tells clients on `<prefix>.keys`. None when it signs nothing. */
  readonly verifyKeys: readonly string[];
  /** `body` signed, for a body the service itself just made; unchanged when it signs nothing. */
  sign<T extends object>(body: T): T & { signature?: Signature };
  /** A verdict the service just made, attested (a decided one, as an in-toto Statement) and signed; unchanged when it signs nothing. */
  signVerdict(verdict: ObservationVerdict): ObservationVerdict;
  /** A verdict of `observationId` the service may publish as its own. Without a key, any verdict (presence is all there is to check). */
  trustsVerdict(verdict: unknown, observationId: string): Trust;
  /** The same, for an event found on the observation's subject. */
  trustsEvent(event: unknown, observationId: string): Trust;
}

/**
 * Signs with `key`; trusts it and `alsoTrusted` (the previous key during a rotation). A decided
 * verdict's attestation names `cluster`, the cluster the operator says the service observes.
 */
export function serviceSigner(key: SigningKey, alsoTrusted: readonly VerifyKey[] = [], cluster?: ClusterName): ServiceSigner {
  const trusted = [key.verifyKey, ...alsoTrusted.filter((other) => other.publicKey !== key.publicKey)];
  return {
    publicKey: key.publicKey,
    verifyKeys: trusted.map((trustedKey) => trustedKey.publicKey),
    sign: (body) => signBody(body, key),
    signVerdict: (verdict) => signBody(attestVerdict(verdict, key, cluster), key),
    trustsVerdict: (verdict, observationId) => checkVerdict(verdict, trusted, { observationId }),
    trustsEvent: (event, observationId) => checkEvent(event, trusted, { observationId }),
  };
}

const unchecked: Trust = { trusted: true, key: "(none: this service signs nothing)" };

/** A service started without a signing key: nothing signed, nothing checked, as before signatures existed. */
export const unsignedService: ServiceSigner = {
  publicKey: undefined,
  verifyKeys: [],
  sign: (body) => body,
  signVerdict: (verdict) => verdict,
  trustsVerdict: () => unchecked,
  trustsEvent: () => unchecked,
};

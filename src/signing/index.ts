// Who said it (SPEC section 11): the service signs every verdict and event it publishes and every
// verdict it stores, with Ed25519 over a canonical form of the body (RFC 8785), with a key pair
// in the nkeys format; readers check the signature, and that the body is about what they asked.
// Pure: no I/O; files and environment are read by the command line.
export { canonicalJson, signatureMember, signedContent } from "./canonicalForm.js";
export { newSigningSeed, SigningKeyError, signingKeyFromSeed, verifyKeyOf, verifyKeysFromEnv, verifyKeysOf, verifyKeyVariable } from "./keys.js";
export type { SigningKey, VerifyKey } from "./keys.js";
export { signBody, verifyBody } from "./signature.js";
export { attestationEnvelope, attestVerdict, checkAttestation, statementOf, subjectOfImage, subjectsOf } from "./attestation.js";
export type { AttestationCheck, Unattested } from "./attestation.js";
export { dsseEnvelope, dsseSignature, preAuthEncoding, verifyEnvelope } from "./dsse.js";
export type { EnvelopeVerification } from "./dsse.js";
export type { SignatureProblem, Verification } from "./signature.js";
export { checkEvent, checkVerdict } from "./trust.js";
export type { Expected, Trust, TrustProblem } from "./trust.js";
export { serviceSigner, unsignedService } from "./serviceSigner.js";
export type { ServiceSigner } from "./serviceSigner.js";

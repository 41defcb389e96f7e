import { describe, expect, it } from "vitest";
import type { ObservationEvent, ObservationVerdict } from "../verdicts/contract/schemas.js";
import { signBody } from "./signature.js";
import { newKey, oldKey } from "./testing/keys.js";
import { checkEvent, checkVerdict } from "./trust.js";
import { serviceSigner, unsignedService } from "./serviceSigner.js";

const observationId = "5f0c6a8e-3b1e-4f5a-9c7d-2e8b1a4d6f00";
const other = "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0";
const verdictOf = (id: string, outcome: ObservationVerdict["outcome"] = "failed", key = "ci-4812/payments"): ObservationVerdict => ({
  observationId: id,
  key,
  deployment: "payments",
  required: "healthy",
  reached: "bootstrapped",
  outcome,
  resources: [],
  message: `deployment payments: ${outcome}`,
  startedAt: "2026-11-29T10:00:00Z",
  deadline: "2026-11-29T10:05:00Z",
  decidedAt: "2026-11-29T10:00:41Z",
});
const keys = [oldKey.verifyKey];
/** A verdict event as the service publishes it: the verdict signed when stored, the event when published. */
const verdictEvent = (verdict: ObservationVerdict, envelope = verdict.observationId): ObservationEvent =>
  signBody({ type: "verdict", observationId: envelope, deployment: "payments", at: verdict.decidedAt!, verdict: signBody(verdict, oldKey) }, oldKey);

describe("checkVerdict", () => {
  it("trusts a signed verdict of the observation and request asked about", () => {
    expect(checkVerdict(signBody(verdictOf(observationId), oldKey), keys, { observationId, key: "ci-4812/payments" })).toEqual({ trusted: true, key: oldKey.publicKey });
  });

  it("refuses the service's genuine verdict of another observation (a `get` answered with a copy)", () => {
    expect(checkVerdict(signBody(verdictOf(other, "succeeded"), oldKey), keys, { observationId })).toMatchObject({ trusted: false, problem: "other observation" });
  });

  it("refuses a genuine verdict for another request key (an `observe` answered with someone else's observation id)", () => {
    const elsewhere = signBody(verdictOf(observationId, "succeeded", "ci-1/other"), oldKey);
    expect(checkVerdict(elsewhere, keys, { observationId, key: "ci-4812/payments" })).toMatchObject({ trusted: false, problem: "other request" });
  });

  it("with nothing expected, checks the signature alone (an evidence file)", () => {
    expect(checkVerdict(signBody(verdictOf(other), oldKey), keys).trusted).toBe(true);
    expect(checkVerdict(verdictOf(other), keys)).toMatchObject({ trusted: false, problem: "unsigned" });
  });
});

describe("checkEvent", () => {
  it("trusts the service's verdict event of the observation", () => {
    expect(checkEvent(verdictEvent(verdictOf(observationId)), keys, { observationId }).trusted).toBe(true);
  });

  it("refuses a forged verdict event: unsigned, or signed by another key", () => {
    const forged = { type: "verdict", observationId, deployment: "payments", at: "2026-11-29T10:00:30Z", verdict: verdictOf(observationId, "succeeded") };
    expect(checkEvent(forged, keys, { observationId })).toMatchObject({ trusted: false, problem: "unsigned" });
    expect(checkEvent(signBody(forged, newKey), keys, { observationId })).toMatchObject({ trusted: false, problem: "unknown key" });
  });

  it("refuses a genuine verdict event of another observation re-published on this one's subject", () => {
    expect(checkEvent(verdictEvent(verdictOf(other, "succeeded")), keys, { observationId })).toMatchObject({ trusted: false, problem: "other observation" });
  });

  it("refuses an envelope that does not match the verdict it carries, even signed", () => {
    // The service never writes one; a verdict inside must be about the observation too.
    expect(checkEvent(verdictEvent(verdictOf(other, "succeeded"), observationId), keys, { observationId })).toMatchObject({ trusted: false, problem: "other observation" });
  });

  it("refuses a verdict event whose verdict is unsigned", () => {
    const event = signBody({ type: "verdict", observationId, deployment: "payments", at: "2026-11-29T10:00:41Z", verdict: verdictOf(observationId) }, oldKey);
    expect(checkEvent(event, keys, { observationId })).toMatchObject({ trusted: false, problem: "unsigned" });
  });

  it("trusts a signed stage event and refuses it tampered", () => {
    const stage = signBody({ type: "stage", observationId, deployment: "payments", at: "2026-11-29T10:00:20Z", stage: "healthy" }, oldKey);
    expect(checkEvent(stage, keys, { observationId }).trusted).toBe(true);
    expect(checkEvent({ ...stage, stage: "bootstrapped" }, keys, { observationId })).toMatchObject({ trusted: false, problem: "bad signature" });
  });
});

describe("the service's signer", () => {
  it("signs with its key and trusts it and the keys it keeps for a rotation", () => {
    const signer = serviceSigner(newKey, [oldKey.verifyKey]);
    expect(signer.publicKey).toBe(newKey.publicKey);
    expect(signer.trustsVerdict(signer.sign(verdictOf(observationId)), observationId).trusted).toBe(true);
    expect(signer.trustsVerdict(signBody(verdictOf(observationId), oldKey), observationId).trusted).toBe(true);
    expect(serviceSigner(newKey).trustsVerdict(signBody(verdictOf(observationId), oldKey), observationId)).toMatchObject({ trusted: false, problem: "unknown key" });
  });

  it("without a key signs nothing and checks nothing", () => {
    const verdict = verdictOf(observationId);
    expect(unsignedService.sign(verdict)).toBe(verdict);
    expect(unsignedService.trustsVerdict(verdict, observationId).trusted).toBe(true);
  });
});

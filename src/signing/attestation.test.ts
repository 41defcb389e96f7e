import { describe, expect, it } from "vitest";
import { apiImage, failedVerdict, succeededVerdict } from "../../test/fixtures/verdicts.js";
import { inTotoPayloadType, inTotoStatementType, verdictPredicateType } from "../verdicts/contract/attestation.js";
import type { ObservationVerdict } from "../verdicts/contract/schemas.js";
import { dsseEnvelope, dsseSignature } from "./dsse.js";
import { attestationEnvelope, attestVerdict, checkAttestation, statementOf, subjectOfImage, subjectsOf } from "./attestation.js";
import { serviceSigner, unsignedService } from "./serviceSigner.js";
import { verifyBody } from "./signature.js";
import { newKey, oldKey } from "./testing/keys.js";

const hex64 = "4d2c7d8f1e0b6a5c3f9e8d7c6b5a49382716f5e4d3c2b1a09f8e7d6c5b4a3928";
const envelopeOf = (verdict: ObservationVerdict) => {
  const envelope = attestationEnvelope(verdict);
  if (typeof envelope === "string") throw new Error(`no envelope: ${envelope}`);
  return envelope;
};
const statementIn = (envelope: { payload: string }) => JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as Record<string, unknown>;

describe("subjects: the images settled workloads run, by digest", () => {
  it.each([
    ["containerd's repository digest", `registry.example/api@sha256:${hex64}`, { name: "registry.example/api", digest: { sha256: hex64 } }],
    ["Docker's, behind its scheme", `docker-pullable://docker.io/library/nginx@sha256:${hex64}`, { name: "docker.io/library/nginx", digest: { sha256: hex64 } }],
    ["a registry with a port", `localhost:5000/api@sha256:${hex64}`, { name: "localhost:5000/api", digest: { sha256: hex64 } }],
    ["a bare config digest (an image loaded onto the node)", `sha256:${hex64}`, undefined],
    ["a tag, no digest", "registry.example/api:7", undefined],
    ["a digest of the wrong length", `registry.example/api@sha256:${hex64.slice(1)}`, undefined],
    ["upper-case hex", `registry.example/api@sha256:${hex64.toUpperCase()}`, undefined],
  ])("%s", (_, imageId, subject) => {
    expect(subjectOfImage(imageId)).toEqual(subject);
  });

  it("distinct and sorted, from settled resources only", () => {
    const withFailed: ObservationVerdict = {
      ...succeededVerdict,
      resources: [...succeededVerdict.resources, { ...failedVerdict.resources[0]!, images: [`registry.example/broken@sha256:${hex64}`] }],
    };
    expect(subjectsOf(withFailed).map((s) => s.name)).toEqual(["docker.io/library/envoy", "registry.example/payments/api"]);
  });
});

describe("the Statement a verdict determines", () => {
  it("is an in-toto Statement v1 of the verdict predicate: stage, outcome, decision time, resources with their generations, the cluster", () => {
    const statement = statementOf(succeededVerdict, "prod-eu-1");
    expect(statement).toMatchObject({
      _type: inTotoStatementType,
      predicateType: verdictPredicateType,
      subject: [{ name: "docker.io/library/envoy" }, { name: "registry.example/payments/api", digest: { sha256: apiImage.split(":").at(-1) } }],
      predicate: {
        observationId: succeededVerdict.observationId,
        deployment: "payments",
        cluster: { name: "prod-eu-1" },
        required: "healthy",
        reached: "healthy",
        outcome: "succeeded",
        decidedAt: "2026-11-29T10:00:41Z",
        resources: expect.arrayContaining([expect.objectContaining({ identity: expect.objectContaining({ name: "api", generation: 7 }), state: "settled" })]),
      },
    });
  });

  it("carries the verified stage's soak window when the request required it, and none otherwise", () => {
    const verification = { windowSeconds: 300, startedAt: "2026-11-29T10:00:41Z", endsAt: "2026-11-29T10:05:41Z", pods: ["api-7f9c6d8b5-x2k8p"] };
    const verified: ObservationVerdict = { ...succeededVerdict, required: "verified", reached: "verified", verification };
    expect(statementOf(verified, undefined)).toMatchObject({ predicate: { required: "verified", reached: "verified", verification } });
    const statement = statementOf(succeededVerdict, undefined);
    expect(typeof statement !== "string" && "verification" in statement.predicate).toBe(false);
  });

  it("none for an undecided verdict, nor for one without an image digest (a Statement v1 needs a subject)", () => {
    expect(statementOf({ ...succeededVerdict, outcome: "in_progress", decidedAt: undefined }, undefined)).toBe("undecided");
    expect(statementOf(failedVerdict, undefined)).toBe("no image digest");
  });
});

describe("attestVerdict and the envelope a reader assembles", () => {
  it("the envelope rebuilt from the verdict, after travelling as JSON, verifies with the signer's key", () => {
    const attested = JSON.parse(JSON.stringify(attestVerdict(succeededVerdict, oldKey, "prod-eu-1"))) as ObservationVerdict;
    expect(attested.attestation?.cluster).toBe("prod-eu-1");
    const envelope = envelopeOf(attested);
    expect(envelope).toMatchObject({ payloadType: inTotoPayloadType, signatures: [{ keyid: "" }] });
    const check = checkAttestation(envelope, [newKey.verifyKey, oldKey.verifyKey]);
    expect(check).toMatchObject({ trusted: true, key: oldKey.publicKey, statement: { predicate: { outcome: "succeeded", cluster: { name: "prod-eu-1" } } } });
  });

  it("a verdict without an image digest is not attested, and says why there is no envelope", () => {
    expect(attestVerdict(failedVerdict, oldKey, undefined).attestation).toBeUndefined();
    expect(attestationEnvelope(failedVerdict)).toBe("unattested");
  });

  it("attesting a changed verdict replaces the earlier attestation (compaction shortens messages)", () => {
    const attested = attestVerdict(succeededVerdict, oldKey, undefined);
    const shorter = attestVerdict({ ...attested, message: "deployment payments reached healthy" }, oldKey, undefined);
    expect(shorter.attestation?.sig).not.toBe(attested.attestation?.sig);
    expect(checkAttestation(envelopeOf(shorter), [oldKey.verifyKey]).trusted).toBe(true);
  });

  it("a verdict changed after attesting no longer gives an envelope that verifies", () => {
    const attested = attestVerdict(succeededVerdict, oldKey, undefined);
    expect(checkAttestation(envelopeOf({ ...attested, outcome: "failed" }), [oldKey.verifyKey])).toMatchObject({ trusted: false, problem: "bad signature" });
  });

  it.each([
    ["the outcome", (s: Record<string, unknown>) => ({ ...s, predicate: { ...(s["predicate"] as object), outcome: "failed" } })],
    ["a subject's digest", (s: Record<string, unknown>) => ({ ...s, subject: [{ name: "evil.example/api", digest: { sha256: hex64 } }] })],
  ])("a tampered payload (%s) is refused", (_, tamper) => {
    const envelope = envelopeOf(attestVerdict(succeededVerdict, oldKey, undefined));
    const payload = Buffer.from(JSON.stringify(tamper(statementIn(envelope)))).toString("base64");
    expect(checkAttestation({ ...envelope, payload }, [oldKey.verifyKey])).toMatchObject({ trusted: false, problem: "bad signature" });
  });

  it("a genuine envelope of another payload type or predicate is not a verdict", () => {
    const envelope = envelopeOf(attestVerdict(succeededVerdict, oldKey, undefined));
    const other = { ...statementIn(envelope), predicateType: "https://slsa.dev/provenance/v1" };
    const bytes = Buffer.from(JSON.stringify(other));
    const signed = dsseEnvelope(inTotoPayloadType, bytes, dsseSignature(inTotoPayloadType, bytes, oldKey));
    expect(checkAttestation(signed, [oldKey.verifyKey])).toMatchObject({ trusted: false, problem: "other payload", message: expect.stringMatching(/^not a stagewatch verdict Statement: predicateType/) });
    const text = Buffer.from("hello world");
    expect(checkAttestation(dsseEnvelope("text/plain", text, dsseSignature("text/plain", text, oldKey)), [oldKey.verifyKey])).toMatchObject({ trusted: false, problem: "other payload" });
  });
});

describe("the service's signVerdict", () => {
  it("attests a decided verdict, then signs it: the verdict's signature covers the attestation", () => {
    const signed = serviceSigner(oldKey, [], "prod-eu-1").signVerdict(succeededVerdict);
    expect(verifyBody(signed, [oldKey.verifyKey]).valid).toBe(true);
    expect(verifyBody({ ...signed, attestation: { ...signed.attestation!, cluster: "staging" } }, [oldKey.verifyKey])).toMatchObject({ valid: false, problem: "bad signature" });
    expect(checkAttestation(envelopeOf(signed), [oldKey.verifyKey]).trusted).toBe(true);
  });

  it("a service that signs nothing attests nothing", () => {
    expect(unsignedService.signVerdict(succeededVerdict)).toBe(succeededVerdict);
  });
});

import { describe, expect, it } from "vitest";
import { failedVerdict, succeededVerdict } from "../../../test/fixtures/verdicts.js";
import { serviceSigner, signBody } from "../../signing/index.js";
import { newKey } from "../../signing/testing/keys.js";
import { verdictEvidence } from "./verdictFile.js";

const signed = signBody(failedVerdict, newKey);

describe("the evidence observe --verdict-file keeps", () => {
  it("the signed verdict, saying why, when there is no attestation", () => {
    expect(verdictEvidence(signed)).toMatchObject({ form: "verdict", why: expect.stringMatching(/^no settled workload reports an image digest/) });
    expect(verdictEvidence(signBody(succeededVerdict, newKey))).toMatchObject({ form: "verdict", why: expect.stringMatching(/^the verdict carries no attestation/) });
  });

  it("the signed verdict when its attestation does not verify as this version assembles it", () => {
    const attested = serviceSigner(newKey).signVerdict(succeededVerdict);
    const otherStatement = signBody({ ...attested, attestation: { ...attested.attestation!, sig: serviceSigner(newKey).signVerdict({ ...succeededVerdict, message: "other" }).attestation!.sig } }, newKey);
    expect(verdictEvidence(otherStatement)).toMatchObject({ form: "verdict", why: expect.stringMatching(/does not verify as this version of stagewatch assembles it/) });
  });
});

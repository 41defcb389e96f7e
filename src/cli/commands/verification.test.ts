import { describe, expect, it } from "vitest";
import { newKey } from "../../signing/testing/keys.js";
import { UsageError } from "../io/usage.js";
import { configuredVerification, verificationFrom } from "../../bus/client/keyDiscovery.js";
import { rejectionReport, resolveVerifyKeys, unverifiedSuccess, verificationNotice } from "./verification.js";

describe("what observe, get and cancel say about verification", () => {
  it("the flag wins over the environment; a bad key names where it came from", () => {
    const env = { STAGEWATCH_VERIFY_KEY: "nope" };
    expect(resolveVerifyKeys([newKey.publicKey], env).map((key) => key.publicKey)).toEqual([newKey.publicKey]);
    expect(() => resolveVerifyKeys(undefined, env)).toThrow(new UsageError('STAGEWATCH_VERIFY_KEY: "nope" is not an nkeys server public key (N followed by 55 base32 characters)'));
    expect(() => resolveVerifyKeys(["nope"], {})).toThrow(/^--verify-key: "nope"/);
  });

  it("one line for the events that failed verification: the first one's report and how many more", () => {
    const report = rejectionReport();
    expect(report.line(0)).toBeUndefined();
    report.logger.warn({}, "ignored an event of observation o-1 that failed verification (no signature)");
    report.logger.warn({}, "ignored another");
    expect(report.line(1)).toBe("stagewatch: ignored an event of observation o-1 that failed verification (no signature)\n");
    expect(report.line(3)).toBe("stagewatch: ignored an event of observation o-1 that failed verification (no signature), and 2 more\n");
  });

  const given = configuredVerification([newKey.verifyKey]);
  const learned = verificationFrom({ answer: { keys: [newKey.publicKey] }, subscribeRefused: true, inboxPublishRefused: true }, "stagewatch.keys");
  const unproven = verificationFrom({ answer: { keys: [newKey.publicKey] }, subscribeRefused: false, inboxPublishRefused: false }, "stagewatch.keys");
  const none = configuredVerification([]);

  it("says nothing of a key given; where a learned key came from; who could have written an unverified verdict", () => {
    expect(verificationNotice(given)).toBeUndefined();
    expect(verificationNotice(learned)).toBe(`stagewatch: verdict verified with ${newKey.publicKey}, learned on stagewatch.keys, where only the service may answer\n`);
    expect(verificationNotice(unproven)).toMatch(/^stagewatch: verdict not verified: N\w+ was learned on stagewatch\.keys, where this client's own credentials may answer too .*; anyone who may publish events could have written it\n$/);
    expect(verificationNotice(none)).toBe("stagewatch: verdict not verified: no key given; anyone who may publish events could have written it\n");
  });

  it.each([
    ["given a key", given, "succeeded", false, false],
    ["learned where only the service answers", learned, "succeeded", false, false],
    ["learned where anyone with these credentials could answer", unproven, "succeeded", false, true],
    ["no key", none, "succeeded", false, true],
    ["no key, --allow-unverified", none, "succeeded", true, false],
    ["no key, a failure (acting on it stops a release, never starts one)", none, "failed", false, false],
    ["no key, still in progress", none, "in_progress", false, false],
  ] as const)("%s: %s is no success to act on: %s", (_, verification, outcome, allowed, refused) => {
    expect(unverifiedSuccess({ outcome }, verification, allowed)).toBe(refused);
  });
});

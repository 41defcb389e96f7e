import { describe, expect, it } from "vitest";
import { newKey } from "../signing/testing/keys.js";
import { UsageError } from "./usage.js";
import { rejectionReport, resolveVerifyKeys, unverifiedNotice } from "./verification.js";

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

  it("says who could have written an unverified verdict, in one line of a terminal", () => {
    expect(unverifiedNotice).toBe("stagewatch: verdict not verified (no STAGEWATCH_VERIFY_KEY): anyone who may publish events could forge it\n");
  });
});

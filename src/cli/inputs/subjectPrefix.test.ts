import { describe, expect, test } from "vitest";
import { resolveSubjectPrefix } from "./subjectPrefix.js";
import { UsageError } from "../io/usage.js";

describe("resolveSubjectPrefix", () => {
  test.each([
    { name: "the flag wins over the environment", flag: "eu1", env: { STAGEWATCH_SUBJECT_PREFIX: "us1" }, prefix: "eu1" },
    { name: "the environment without the flag", flag: undefined, env: { STAGEWATCH_SUBJECT_PREFIX: "us1" }, prefix: "us1" },
    { name: "neither: the default", flag: undefined, env: {}, prefix: "stagewatch" },
    { name: "a dotted prefix", flag: "acme.stagewatch", env: {}, prefix: "acme.stagewatch" },
  ])("$name", ({ flag, env, prefix }) => {
    expect(resolveSubjectPrefix(flag, env)).toBe(prefix);
  });

  test("a bad value is a usage error naming where it came from", () => {
    expect(() => resolveSubjectPrefix("a b", {})).toThrow(new UsageError(`--subject-prefix: "a b" is not a subject prefix: tokens of letters, digits, '-' and '_', joined by '.'`));
    expect(() => resolveSubjectPrefix(undefined, { STAGEWATCH_SUBJECT_PREFIX: "x.>" })).toThrow(/^STAGEWATCH_SUBJECT_PREFIX: "x.>" is not a subject prefix/);
  });
});

import { expect, test } from "vitest";
import { DurationSyntaxError, durationFlagSeconds, parseDurationSeconds } from "./duration.js";
import { UsageError } from "../io/usage.js";

test.each([
  ["300", 300],
  ["90s", 90],
  ["5m", 300],
  ["1h30m", 5400],
  ["1m30s", 90],
  ["1.5h", 5400],
  ["500ms", 0.5],
])("%s is %d seconds", (text, seconds) => {
  expect(parseDurationSeconds(text)).toBe(seconds);
});

test.each(["", "5 minutes", "m5", "5x", "-5m", "5m junk"])("'%s' is rejected", (text) => {
  expect(() => parseDurationSeconds(text)).toThrow(DurationSyntaxError);
});

test("a flag's duration is whole seconds, rounded up", () => {
  expect(durationFlagSeconds("--timeout", "1.5s")).toBe(2);
  expect(durationFlagSeconds("--timeout", "500ms")).toBe(1);
});

test("a flag's bad duration is a UsageError naming the flag", () => {
  expect(() => durationFlagSeconds("--timeout", "soon")).toThrow(UsageError);
  expect(() => durationFlagSeconds("--timeout", "soon")).toThrow("--timeout: 'soon' is not a duration");
});

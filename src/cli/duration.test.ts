import { expect, test } from "vitest";
import { DurationSyntaxError, parseDurationSeconds } from "./duration.js";

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

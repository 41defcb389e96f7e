import { describe, expect, it } from "vitest";
import { formatDuration } from "./text.js";

describe("formatDuration (Go's time.Duration, to the second)", () => {
  it.each([
    [300_000, "5m0s"],
    [299_600, "5m0s"],
    [45_000, "45s"],
    [90_000, "1m30s"],
    [3_600_000, "1h0m0s"],
    [5_430_000, "1h30m30s"],
    [0, "0s"],
    [-1_000, "0s"],
  ])("%i ms -> %s", (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { createBackoff, defaultBackoffPolicy, type BackoffPolicy } from "./backoff.js";

const policy: BackoffPolicy = { initialMs: 800, maxMs: 30_000, resetAfterMs: 120_000, jitter: 0.5 };

describe("createBackoff", () => {
  it.each([
    { name: "no jitter drawn (random 0): the full delay", random: 0, expected: [800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000] },
    { name: "most jitter drawn (random 1): half the delay", random: 1, expected: [400, 800, 1600, 3200, 6400, 12_800, 15_000, 15_000] },
  ])("doubles up to the cap, $name", ({ random, expected }) => {
    const backoff = createBackoff(policy, () => random);
    // Failures one second apart: never long enough to be forgiven.
    expect(expected.map((_, i) => backoff.next(i * 1000))).toEqual(expected);
  });

  it("starts again from the initial delay after a failure-free stretch", () => {
    const backoff = createBackoff(policy, () => 0);
    expect([backoff.next(0), backoff.next(1_000), backoff.next(2_000)]).toEqual([800, 1600, 3200]);
    expect(backoff.next(2_000 + 119_999)).toBe(6400);
    expect(backoff.next(2_000 + 119_999 + 120_000)).toBe(800);
  });

  it("never exceeds the cap, whatever the jitter", () => {
    const backoff = createBackoff(defaultBackoffPolicy, Math.random);
    for (let i = 0; i < 200; i++) {
      const delay = backoff.next(i);
      expect(delay).toBeLessThanOrEqual(defaultBackoffPolicy.maxMs);
      expect(delay).toBeGreaterThan(0);
    }
  });
});

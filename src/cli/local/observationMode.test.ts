// Which engine decides: the service whenever NATS is configured (never a quiet fallback), local
// mode when nothing is, and --mode forces either.
import { describe, expect, test } from "vitest";
import { observationMode } from "./observationMode.js";

const choice = (overrides: Partial<Parameters<typeof observationMode>[0]> = {}) => ({ flag: undefined, natsUrlFlag: undefined, verifyKeyGiven: false, ...overrides });

describe("observe's mode", () => {
  test.each([
    { name: "nothing configured", env: {}, given: {}, mode: "local" },
    { name: "NATS_URL", env: { NATS_URL: "nats://nats:4222" }, given: {}, mode: "service" },
    { name: "NATS_URL empty counts as unset", env: { NATS_URL: "" }, given: {}, mode: "local" },
    { name: "a credentials file alone (the default URL)", env: { NATS_CREDS_FILE: "/ci/nats.creds" }, given: {}, mode: "service" },
    { name: "a token alone", env: { NATS_TOKEN: "s3cret" }, given: {}, mode: "service" },
    { name: "a user alone", env: { NATS_USER: "ci" }, given: {}, mode: "service" },
    { name: "--nats-url", env: {}, given: { natsUrlFlag: "nats://nats:4222" }, mode: "service" },
    { name: "--mode local with NATS_URL", env: { NATS_URL: "nats://nats:4222" }, given: { flag: "local" }, mode: "local" },
    { name: "--mode service with nothing (the default URL)", env: {}, given: { flag: "service" }, mode: "service" },
    { name: "a verify key and NATS", env: { NATS_URL: "nats://nats:4222" }, given: { verifyKeyGiven: true }, mode: "service" },
    { name: "a verify key, --mode local", env: {}, given: { flag: "local", verifyKeyGiven: true }, mode: "local" },
  ])("$name: $mode", ({ env, given, mode }) => {
    expect(observationMode(choice(given), env)).toBe(mode);
  });

  test("a verify key without NATS is refused: the caller trusts only the service's signature", () => {
    expect(() => observationMode(choice({ verifyKeyGiven: true }), {})).toThrow(/verify key is given .* but no NATS/);
  });

  test("--mode must be local or service", () => {
    expect(() => observationMode(choice({ flag: "auto" }), {})).toThrow("--mode: must be one of local, service");
  });
});

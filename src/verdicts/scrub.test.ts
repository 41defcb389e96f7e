import { describe, expect, it } from "vitest";
import { scrubCredentials } from "./scrub.js";

const cases: { name: string; text: string; expected: string }[] = [
  {
    name: "Docker Hub pull rate limit naming the user and its token id",
    text: "toomanyrequests: You have reached your pull rate limit as 'acme-ci': dckr_jti_9Lg3-DN__PcJ-S_X3BoAVBr-mIk=. You may increase the limit by upgrading.",
    expected: "toomanyrequests: You have reached your pull rate limit as [redacted]. You may increase the limit by upgrading.",
  },
  {
    name: "a registry naming the user",
    text: "unauthorized: authentication required as user deploy-bot",
    expected: "unauthorized: authentication required as user [redacted]",
  },
  {
    name: "an echoed bearer Authorization header",
    text: "request failed: Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2lnbmF0dXJl rejected",
    expected: "request failed: Authorization: Bearer [redacted] rejected",
  },
  {
    name: "an echoed basic Authorization header",
    text: "Authorization: Basic ZGVwbG95OnMzY3IzdA== not accepted",
    expected: "Authorization: Basic [redacted] not accepted",
  },
  {
    name: "basic-auth userinfo in a URL",
    text: 'failed to resolve reference "https://deploy:s3cr3t@registry.acme.internal/payments/api:1.4.3"',
    expected: 'failed to resolve reference "https://[redacted]@registry.acme.internal/payments/api:1.4.3"',
  },
  {
    name: "token and password parameters",
    text: "GET https://auth.acme.internal/token?scope=repo&access_token=a1b2c3d4&password=hunter2 failed",
    expected: "GET https://auth.acme.internal/token?scope=repo&access_token=[redacted]&password=[redacted] failed",
  },
  {
    name: "a JSON body with a password",
    text: 'webhook denied {"username":"ops","password":"hunter2"}',
    expected: 'webhook denied {"username":"ops","password":[redacted]}',
  },
  {
    name: "a GitHub token anywhere",
    text: "clone of https://github.com/acme/charts failed with ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    expected: "clone of https://github.com/acme/charts failed with [redacted]",
  },
  {
    name: "a missing secret's name is no credential",
    text: 'secret "payments-db" not found',
    expected: 'secret "payments-db" not found',
  },
  {
    name: "an ordinary pull failure is untouched",
    text: 'Back-off pulling image "ghcr.io/acme/payments-api:1.4.3"',
    expected: 'Back-off pulling image "ghcr.io/acme/payments-api:1.4.3"',
  },
];

describe("scrubCredentials", () => {
  it.each(cases)("$name", ({ text, expected }) => {
    expect(scrubCredentials(text)).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { scrubUrlUserinfo } from "./urlUserinfo.js";

describe("scrubUrlUserinfo", () => {
  it.each([
    ["user and password", "https://deploy:s3cr3t@registry.acme.internal/v2/", "https://[redacted]@registry.acme.internal/v2/"],
    ["a password holding / and @", "postgres://app:p@ss/w0rd@db:5432/app", "postgres://[redacted]@db:5432/app"],
    ["an email address as user", "amqp://ci@acme.io:t0k3n@rabbit:5672/", "amqp://[redacted]@rabbit:5672/"],
    ["an empty user", "https://:tok@git.acme.io/x.git", "https://[redacted]@git.acme.io/x.git"],
    ["a digits-only password", "redis://default:1234@cache:6379", "redis://[redacted]@cache:6379"],
    ["two URLs apart", "from https://a:b@one.io to https://c:d@two.io", "from https://[redacted]@one.io to https://[redacted]@two.io"],
    ["a URL in JSON", '{"url":"https://a:b@one.io","next":"x@y"}', '{"url":"https://[redacted]@one.io","next":"x@y"}'],
    ["a URL nested in a query of a URL", "https://proxy:8443/?to=https://u:p@inner.io/x", "https://proxy:8443/?to=https://[redacted]@inner.io/x"],
  ])("redacts %s", (_what, text, expected) => {
    expect(scrubUrlUserinfo(text)).toBe(expected);
  });

  it.each([
    ["a port", "GET https://registry.npmjs.org:443/@acme/payments 404"],
    ["a port ending the URL", 'Get "http://10.244.0.5:8080": refused'],
    ["an IPv6 host", "http://[::1]:8080/healthz"],
    ["a path holding @", "https://ghcr.io/acme/api@sha256:9f86d08"],
    ["a user without a password", "ssh://git@github.com/acme/payments.git"],
    ["no scheme", "git@github.com:acme/payments.git"],
    ["'://' at the start", "://u:p@host"],
  ])("leaves %s alone", (_what, text) => {
    expect(scrubUrlUserinfo(text)).toBe(text);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseWith } from "../verdicts/contract/validation.js";
import {
  describeNatsConfig,
  NatsConnectionConfig,
  NatsCredentialsError,
  natsConfigFromEnv,
  toConnectionOptions,
} from "./connectionOptions.js";

const parse = (input: unknown) => parseWith(NatsConnectionConfig, input);

describe("NatsConnectionConfig", () => {
  it("splits a comma-separated server list as NATS_URL writes it", () => {
    expect(parse({ servers: "nats://nats-0:4222, nats://nats-1:4222," })).toMatchObject({
      ok: true,
      value: { servers: ["nats://nats-0:4222", "nats://nats-1:4222"], connectTimeoutMs: 5000 },
    });
  });

  const refused: [string, unknown, string[]][] = [
    ["no server", { servers: " , " }, ["servers"]],
    ["a token and a user", { servers: "nats://n:4222", token: "s3cr3t", user: "deployer", password: "pw" }, ["user"]],
    ["a creds file and a token", { servers: "nats://n:4222", credsFile: "/etc/nats/user.creds", token: "s3cr3t" }, ["token"]],
    ["a password without a user", { servers: "nats://n:4222", password: "pw" }, ["user"]],
    ["a client certificate without its key", { servers: "nats://n:4222", tls: { certFile: "/tls/tls.crt" } }, ["tls.keyFile"]],
    ["a misspelt option", { servers: "nats://n:4222", tokn: "s3cr3t" }, ["tokn"]],
  ];
  it.each(refused)("refuses %s", (_, input, paths) => {
    const parsed = parse(input);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.issues.map((i) => i.path)).toEqual(paths);
  });
});

describe("natsConfigFromEnv", () => {
  it("reads the variables docs/reference/environment.md documents", () => {
    const parsed = natsConfigFromEnv({
      NATS_URL: "tls://nats.messaging:4222",
      NATS_USER: "stagewatch",
      NATS_PASSWORD: "pw",
      NATS_TLS_CA_FILE: "/tls/ca.crt",
      HOME: "/root",
    });
    expect(parsed).toEqual({
      ok: true,
      value: { servers: ["tls://nats.messaging:4222"], user: "stagewatch", password: "pw", tls: { caFile: "/tls/ca.crt" }, connectTimeoutMs: 5000 },
    });
  });

  it("defaults to a local server", () => {
    expect(natsConfigFromEnv({})).toMatchObject({ ok: true, value: { servers: ["nats://127.0.0.1:4222"] } });
  });

  it("reads the user, password and token from files (a mounted Secret), one trailing line end dropped", () => {
    const dir = mkdtempSync(join(tmpdir(), "nats-secret-"));
    writeFileSync(join(dir, "user"), "stagewatch\n");
    writeFileSync(join(dir, "password"), "p w\n\n");
    expect(natsConfigFromEnv({ NATS_USER_FILE: join(dir, "user"), NATS_PASSWORD_FILE: join(dir, "password") })).toMatchObject({
      ok: true,
      value: { user: "stagewatch", password: "p w\n" },
    });
    expect(natsConfigFromEnv({ NATS_TOKEN_FILE: join(dir, "missing") })).toMatchObject({ ok: false, issues: [{ path: "NATS_TOKEN_FILE", message: expect.stringContaining("cannot read") }] });
    expect(natsConfigFromEnv({ NATS_TOKEN: "t", NATS_TOKEN_FILE: join(dir, "user") })).toMatchObject({ ok: false, issues: [{ path: "NATS_TOKEN" }] });
  });
});

describe("toConnectionOptions", () => {
  const config = (input: unknown) => {
    const parsed = parse(input);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return parsed.value;
  };

  it("passes user, password and TLS files through and reconnects for ever", () => {
    const options = toConnectionOptions(config({ servers: "nats://n:4222", user: "u", password: "p", tls: { caFile: "/tls/ca.crt" } }));
    expect(options).toMatchObject({ servers: ["nats://n:4222"], user: "u", pass: "p", tls: { caFile: "/tls/ca.crt" }, maxReconnectAttempts: -1 });
  });

  it("reads a credentials file into an authenticator", () => {
    const dir = mkdtempSync(join(tmpdir(), "stagewatch-creds-"));
    const file = join(dir, "user.creds");
    writeFileSync(file, "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ\n------END NATS USER JWT------\n");
    const options = toConnectionOptions(config({ servers: "nats://n:4222", credsFile: file }));
    expect(options.authenticator).toBeTypeOf("function");
  });

  it("fails at once on a credentials file that is not there", () => {
    expect(() => toConnectionOptions(config({ servers: "nats://n:4222", credsFile: "/nonexistent/user.creds" }))).toThrow(NatsCredentialsError);
  });
});

describe("describeNatsConfig", () => {
  it("never shows a secret", () => {
    const described = describeNatsConfig({
      servers: ["nats://deployer:hunter2@nats-0:4222", "nats-1:4222"],
      token: "s3cr3t-token",
      connectTimeoutMs: 5000,
    });
    expect(described).toEqual({ servers: ["nats://nats-0:4222", "nats-1:4222"], auth: "token", tls: false });
    expect(JSON.stringify(described)).not.toMatch(/hunter2|s3cr3t/);
  });
});

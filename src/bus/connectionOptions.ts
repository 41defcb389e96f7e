// NATS connection settings from configuration (SPEC section 9): servers, one way to authenticate
// (credentials file, token, or user and password), TLS files. Credentials never reach a log:
// describeNatsConfig is the only view of this config meant for one.
import { readFileSync } from "node:fs";
import { credsAuthenticator, type NodeConnectionOptions } from "@nats-io/transport-node";
import { z } from "zod";
import type { FieldIssue } from "../verdicts/contract/schemas.js";
import { describeIssues, parseWith, type Parsed } from "../verdicts/contract/validation.js";

const path = z.string().min(1, "must not be empty");

export const NatsTlsConfig = z
  .strictObject({
    caFile: path.optional(),
    certFile: path.optional(),
    keyFile: path.optional(),
    /** TLS before the NATS INFO exchange, for servers behind a TLS-terminating proxy. */
    handshakeFirst: z.boolean().optional(),
  })
  .superRefine((tls, ctx) => {
    if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
      ctx.addIssue({ code: "custom", path: [tls.certFile ? "keyFile" : "certFile"], message: "a client certificate needs both certFile and keyFile" });
    }
  });

export const NatsConnectionConfig = z
  .strictObject({
    /** One URL, several as an array, or a comma-separated list (the NATS_URL convention). */
    servers: z
      .union([z.string(), z.array(z.string())])
      .transform((servers) => (Array.isArray(servers) ? servers : servers.split(",")).map((s) => s.trim()).filter((s) => s !== ""))
      .pipe(z.array(z.string()).min(1, "at least one server")),
    /** Shown by the server's monitoring endpoints; helps find who holds a connection. */
    name: z.string().optional(),
    credsFile: path.optional(),
    token: z.string().min(1).optional(),
    user: z.string().min(1).optional(),
    password: z.string().optional(),
    tls: NatsTlsConfig.optional(),
    connectTimeoutMs: z.int().positive().default(5000),
  })
  .superRefine((config, ctx) => {
    const ways = [config.credsFile && "credsFile", config.token && "token", config.user && "user"].filter(Boolean);
    if (ways.length > 1) {
      ctx.addIssue({ code: "custom", path: [ways[1] as string], message: `give one way to authenticate, not ${ways.join(" and ")}` });
    }
    if (config.password !== undefined && config.user === undefined) {
      ctx.addIssue({ code: "custom", path: ["user"], message: "required with a password" });
    }
  });
export type NatsConnectionConfig = z.output<typeof NatsConnectionConfig>;
export type NatsConnectionConfigInput = z.input<typeof NatsConnectionConfig>;

export class NatsConfigError extends Error {
  override readonly name = "NatsConfigError";
  constructor(readonly issues: readonly FieldIssue[]) {
    super(`invalid NATS connection settings: ${describeIssues(issues)}`);
  }
}

export class NatsCredentialsError extends Error {
  override readonly name = "NatsCredentialsError";
  constructor(
    readonly file: string,
    options: ErrorOptions,
  ) {
    super(`cannot read NATS credentials file ${file}`, options);
  }
}

/**
 * The variables docs/operator/install.md documents for `stagewatch serve`; unset variables are
 * left out.
 * NATS_TOKEN, NATS_USER and NATS_PASSWORD may each come from a file instead (`NATS_TOKEN_FILE`,
 * ...: a mounted Secret, so the secret is in no process environment); one trailing line end is
 * dropped, as `kubectl create secret --from-file` keeps what the file held.
 */
export function natsConfigFromEnv(env: Readonly<Record<string, string | undefined>>): Parsed<NatsConnectionConfig> {
  const tls = { caFile: env.NATS_TLS_CA_FILE, certFile: env.NATS_TLS_CERT_FILE, keyFile: env.NATS_TLS_KEY_FILE };
  const issues: FieldIssue[] = [];
  const secret = (name: "NATS_TOKEN" | "NATS_USER" | "NATS_PASSWORD"): string | undefined => {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === "") return env[name];
    if (env[name] !== undefined) issues.push({ path: name, message: `give ${name} or ${name}_FILE, not both` });
    try {
      return readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      issues.push({ path: `${name}_FILE`, message: `cannot read ${file}: ${(error as Error).message}` });
      return undefined;
    }
  };
  const given = { token: secret("NATS_TOKEN"), user: secret("NATS_USER"), password: secret("NATS_PASSWORD") };
  if (issues.length > 0) return { ok: false, issues };
  return parseWith(NatsConnectionConfig, {
    servers: env.NATS_URL ?? "nats://127.0.0.1:4222",
    credsFile: env.NATS_CREDS_FILE,
    ...given,
    tls: Object.values(tls).some((v) => v !== undefined) ? tls : undefined,
  });
}

/**
 * Options for `connect()`. The credentials file is read now, so a wrong path fails at start-up
 * with NatsCredentialsError, and again at every (re)connect, so a rotated Secret is picked up
 * without a restart; a failed re-read keeps the last good credentials.
 */
export function toConnectionOptions(config: NatsConnectionConfig): NodeConnectionOptions {
  const options: NodeConnectionOptions = {
    servers: config.servers,
    name: config.name,
    timeout: config.connectTimeoutMs,
    // A long-running service and a CLI waiting for a verdict both outlive a NATS restart.
    maxReconnectAttempts: -1,
  };
  if (config.credsFile !== undefined) {
    const file = config.credsFile;
    let lastGood = readCreds(file);
    options.authenticator = credsAuthenticator(() => {
      try {
        lastGood = readCreds(file);
      } catch {
        // keep lastGood: a Secret being rewritten can be briefly unreadable
      }
      return lastGood;
    });
  }
  if (config.token !== undefined) options.token = config.token;
  if (config.user !== undefined) {
    options.user = config.user;
    options.pass = config.password;
  }
  if (config.tls !== undefined) options.tls = { ...config.tls };
  return options;
}

function readCreds(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (cause) {
    throw new NatsCredentialsError(file, { cause });
  }
}

/** What may be logged: servers without user info, which way of authenticating, whether TLS is set. */
export function describeNatsConfig(config: NatsConnectionConfig) {
  const auth = config.credsFile ? "creds" : config.token ? "token" : config.user ? "user" : "none";
  return { servers: config.servers.map(withoutUserInfo), auth, tls: config.tls !== undefined } as const;
}

function withoutUserInfo(server: string): string {
  // nats://user:secret@host:4222 is legal in NATS_URL; keep only where it points.
  return server.replace(/^([a-z]+:\/\/)?[^@/]*@/i, "$1");
}

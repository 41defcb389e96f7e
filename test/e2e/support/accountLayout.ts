/**
 * The documented shared layout, as a team member would meet it: a nats-server of the test file's
 * own with the shipped accounts (deploy/nats/accounts.conf: STAGEWATCH holding the service, TEAM_A,
 * TEAM_B, the admin PLATFORM), and the compiled `stagewatch serve` in STAGEWATCH with the shipped
 * tenants file (deploy/nats/tenants.yaml) and a signing key, against the e2e cluster. Each team is
 * a client of its own account, as its CI jobs would be.
 *
 * `useAccountLayout()` registers the afterAll that stops all of it; call `start()` in beforeAll.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, expect } from "vitest";
import { connectObserver, type Observer } from "../../../src/bus/index.ts";
import { buildOrReuseBinaries } from "../../cluster/binaries.ts";
import { startNatsWithAccounts, type NatsNode } from "../../cluster/nats.ts";
import { REPO_ROOT, scratchDir, startServe, type RunningService } from "../../cluster/stagewatch.ts";
import { compiledStagewatch, output, runStagewatch } from "./cli.ts";
import { kubeconfigPath } from "./cluster.ts";

export const accountsFile = join(REPO_ROOT, "deploy", "nats", "accounts.conf");
export const tenantsFile = join(REPO_ROOT, "deploy", "nats", "tenants.yaml");

export type Account = "STAGEWATCH" | "TEAM_A" | "TEAM_B" | "PLATFORM";
const userNames: Record<Account, string> = { STAGEWATCH: "stagewatch", TEAM_A: "team-a", TEAM_B: "team-b", PLATFORM: "platform" };

export interface AccountLayoutOptions {
  /** Names the scratch directory. */
  name: string;
  /** More `serve` flags (`--container-logs`, limits). */
  serveArgs?: readonly string[];
  /** Without the shipped tenants file (the single-account case). Default true. */
  tenants?: boolean;
}

export interface AccountLayout {
  readonly nats: NatsNode;
  readonly natsBinary: string;
  readonly dir: string;
  readonly service: RunningService;
  /** The service's public verify key (`N...`). */
  readonly publicKey: string;
  /** The passwords as the server reads them from its environment (`TEAM_A_NATS_PASSWORD`...). */
  readonly passwordsEnv: Record<string, string>;
  user(account: Account): { user: string; pass: string };
  /** The client of `account`, given the service's key; one per account, closed after the file. */
  observer(account: Account): Promise<Observer>;
  /** A plain connection of `account`'s user, closed after the file. */
  connection(account: Account): Promise<NatsConnection>;
  /** `stagewatch ARGS` as a CI job of `account` runs it (with the service's key unless `env` overrides it). */
  cli(account: Account, args: string[], env?: NodeJS.ProcessEnv): ReturnType<typeof runStagewatch>;
}

/**
 * A user with a fresh password for each account, and the passwords as the server reads them from
 * its environment (deploy/nats/accounts.conf: `TEAM_A_NATS_PASSWORD`...).
 */
export function accountUsers(): { users: Record<Account, { user: string; pass: string }>; passwordsEnv: Record<string, string> } {
  const users = Object.fromEntries(
    (Object.keys(userNames) as Account[]).map((account) => [account, { user: userNames[account], pass: randomBytes(12).toString("hex") }]),
  ) as Record<Account, { user: string; pass: string }>;
  const passwordsEnv = Object.fromEntries((Object.keys(users) as Account[]).map((account) => [`${account}_NATS_PASSWORD`, users[account].pass]));
  return { users, passwordsEnv };
}

export function useAccountLayout(): { start(options: AccountLayoutOptions): Promise<AccountLayout> } {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    async start(options) {
      const { users, passwordsEnv } = accountUsers();
      const natsBinary = buildOrReuseBinaries().natsServer;
      const dir = scratchDir(options.name);
      const nats = await startNatsWithAccounts(natsBinary, join(dir, "nats"), accountsFile, passwordsEnv);
      cleanups.push(() => nats.stop());
      const key = await runStagewatch(["keys", "create", join(dir, "signing.nk")], { cwd: dir, env: {} });
      expect(key.status, output(key)).toBe(0);
      const publicKey = key.stdout.trim();
      const service = await startServe(compiledStagewatch().cli, {
        kubeconfigPath: kubeconfigPath(),
        natsUrl: nats.url,
        dir,
        args: [...(options.tenants === false ? [] : [`--tenants=${tenantsFile}`]), `--signing-key=${join(dir, "signing.nk")}`, ...(options.serveArgs ?? [])],
        env: { NATS_USER: users.STAGEWATCH.user, NATS_PASSWORD: users.STAGEWATCH.pass },
      });
      cleanups.push(() => service.process.stop());

      const observers = new Map<Account, Promise<Observer>>();
      return {
        nats,
        natsBinary,
        dir,
        service,
        publicKey,
        passwordsEnv,
        user: (account) => users[account],
        observer(account) {
          let made = observers.get(account);
          if (!made) {
            made = connectObserver({ servers: nats.url, user: users[account].user, password: users[account].pass, prefix: "stagewatch", verifyKey: publicKey });
            observers.set(account, made);
            cleanups.push(async () => (await made!).close());
          }
          return made;
        },
        async connection(account) {
          const nc = await connect({ servers: nats.url, user: users[account].user, pass: users[account].pass });
          cleanups.push(() => nc.close());
          return nc;
        },
        cli: (account, args, env = {}) =>
          runStagewatch(args, {
            cwd: dir,
            env: { NATS_URL: nats.url, NATS_USER: users[account].user, NATS_PASSWORD: users[account].pass, STAGEWATCH_VERIFY_KEY: publicKey, ...env },
          }),
      };
    },
  };
}

/** The permission violations the server reports to a connection, as they come. */
export function violations(nc: NatsConnection): string[] {
  const seen: string[] = [];
  void (async () => {
    for await (const status of nc.status()) if (status.type === "error") seen.push(String(status.error));
  })();
  return seen;
}

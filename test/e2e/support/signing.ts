/**
 * The key the e2e services sign with, and its public half as a cluster's CI jobs get it (the
 * chart's ConfigMap `<release>-verify-keys`): every `serve` useServes starts signs with it unless
 * the test gives its own `--signing-key`, and every `stagewatch` runStagewatch runs, and every
 * pipeline, is given STAGEWATCH_VERIFY_KEY unless the test sets it (an empty value: no key).
 * Since `observe` and `get` take no unverified success for one (exit 3, issue 32), a test that
 * means a client without a key says so.
 *
 * One key per test file (the module is loaded once a file): made at first use, its seed written
 * to the file's scratch directory, readable by its owner only.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { newSigningSeed } from "../../../src/signing/index.ts";
import { scratchDir } from "../../cluster/stagewatch.ts";

let made: { seedFile: string; publicKey: string } | undefined;

function key(): { seedFile: string; publicKey: string } {
  if (made === undefined) {
    const { seed, publicKey } = newSigningSeed();
    const seedFile = join(scratchDir("signing"), "signing.nk");
    writeFileSync(seedFile, `${seed}\n`, { mode: 0o600 });
    made = { seedFile, publicKey };
  }
  return made;
}

/** The seed file `serve --signing-key` reads. */
export const e2eSigningKeyFile = (): string => key().seedFile;

/** Its public key, `N...`: what STAGEWATCH_VERIFY_KEY holds by default in the e2e runs. */
export const e2eVerifyKey = (): string => key().publicKey;

const readsVerdicts = new Set(["observe", "get", "cancel"]);
const natsVariables = ["NATS_URL", "NATS_CREDS_FILE", "NATS_TOKEN", "NATS_USER"];

/**
 * The environment of `stagewatch ARGS`: with STAGEWATCH_VERIFY_KEY set to the e2e key when the
 * command reads the service's verdicts (observe, get, cancel with NATS configured: local mode
 * refuses a key, as it verifies nothing) and `env` names no key (or none, as an empty value) itself.
 */
export function withE2eVerifyKey(args: readonly string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const natsConfigured = natsVariables.some((name) => (env[name] ?? "") !== "") || args.some((arg) => /^--(nats-url|server)(=|$)/.test(arg));
  if (!readsVerdicts.has(args[0] ?? "") || !natsConfigured || "STAGEWATCH_VERIFY_KEY" in env) return env;
  return { ...env, STAGEWATCH_VERIFY_KEY: e2eVerifyKey() };
}

// Which engine decides an `observe`: the shared service over NATS, or the same engine in this
// process (local mode). With NATS configured it is always the service, and a service that cannot
// be reached is exit 3: a pipeline that meant to use the service must never quietly bypass it
// (its RBAC, its signed verdicts, its tenants). With nothing configured it is local, so stagewatch
// can be tried with only a kubeconfig. `--mode` forces either.
import { UsageError } from "./usage.js";

export const observationModes = ["local", "service"] as const;
export type ObservationMode = (typeof observationModes)[number];

export interface ModeChoice {
  /** `--mode`. */
  readonly flag: string | undefined;
  /** `--nats-url` / `--server`. */
  readonly natsUrlFlag: string | undefined;
  /** A verify key given (`--verify-key` or $STAGEWATCH_VERIFY_KEY): the caller trusts only the service's signature. */
  readonly verifyKeyGiven: boolean;
}

/** NATS counts as configured by a URL or by any credential: credentials alone mean the default URL. */
const natsVariables = ["NATS_URL", "NATS_CREDS_FILE", "NATS_TOKEN", "NATS_USER"] as const;

export function natsConfigured(env: NodeJS.ProcessEnv, natsUrlFlag: string | undefined): boolean {
  return natsUrlFlag !== undefined || natsVariables.some((name) => (env[name] ?? "") !== "");
}

export function observationMode(choice: ModeChoice, env: NodeJS.ProcessEnv): ObservationMode {
  if (choice.flag !== undefined) {
    if (!observationModes.includes(choice.flag as ObservationMode)) throw new UsageError(`--mode: must be one of ${observationModes.join(", ")}`);
    return choice.flag as ObservationMode;
  }
  if (natsConfigured(env, choice.natsUrlFlag)) return "service";
  if (choice.verifyKeyGiven) {
    throw new UsageError(
      "a verify key is given (--verify-key or STAGEWATCH_VERIFY_KEY) but no NATS: set NATS_URL to ask the service whose verdicts it verifies, or --mode local to decide in this process, unsigned",
    );
  }
  return "local";
}

// Which engine decides an `observe`: the shared service over NATS, or the same engine in this
// process (local mode). With NATS configured it is always the service, and a service that cannot
// be reached is exit 3: a pipeline that meant to use the service must never quietly bypass it
// (its RBAC, its signed verdicts, its tenants). With nothing configured it is local, so stagewatch
// can be tried with only a kubeconfig. `--mode` forces either.
import type { ObservationRun } from "../../bus/client/client.js";
import type { Verification } from "../../bus/client/keyDiscovery.js";
import { ObservationMode, type ObservationVerdict } from "../../verdicts/contract/schemas.js";
import { UsageError } from "../io/usage.js";

export const observationModes = ObservationMode.options;

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

/** What observe follows, whichever mode decides: the run, its current verdict, and how to end it. */
export interface ObserveSession {
  readonly run: ObservationRun;
  /** The observation's verdict so far (the live view's start). */
  current(): Promise<ObservationVerdict | undefined>;
  /** Service mode: where the keys came from and whether the verdict is then the service's word. Local mode: none. */
  readonly verification?: Verification;
  /**
   * Ends the follow, without waiting for what it opened to finish closing; resolves with a line for
   * stderr, if there is something to say (messages that failed verification).
   */
  close(): Promise<string | undefined>;
}

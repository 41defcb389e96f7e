// observe's side of local mode: the kubeconfig and health checks read, the engine started on the
// request (localObserver.ts), and the process's signals turned into a cancel, so Ctrl-C (or a CI
// runner's SIGTERM) ends with a `cancelled` verdict printed rather than a process killed mid-line.
// Loaded by observeCommand only in local mode.
import type { ObservationRequest } from "../../verdicts/index.js";
import type { Logger } from "../../logging/index.js";
import type { CommandIo } from "../io/commandIo.js";
import { readHealthChecks } from "../inputs/healthChecksFile.js";
import type { AnalysesSetting } from "../inputs/analysesFlags.js";
import { loadKubeconfig, type KubeconfigChoice } from "./kubeconfigLoading.js";
import { observeLocally } from "./localObserver.js";
import type { ObserveSession } from "./observationMode.js";

export interface LocalSessionOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly kubeconfig: KubeconfigChoice;
  /** `--health-checks FILE`. */
  readonly healthChecksFile: string | undefined;
  /** `--analyses FILE` with `--prometheus-url` and its options, read. */
  readonly analyses?: AnalysesSetting | undefined;
  /** `--key` was given: it has no meaning here, and observe says so. */
  readonly keyGiven: boolean;
  readonly stderr: CommandIo["stderr"];
}

export const keyIgnoredNotice = "stagewatch: --key has no effect in local mode: nothing outlives this process, so there is nothing to replay or follow by key\n";

export async function openLocalSession(request: ObservationRequest, options: LocalSessionOptions): Promise<ObserveSession> {
  const { stderr } = options;
  if (options.keyGiven) stderr.write(keyIgnoredNotice);
  const healthChecks = options.healthChecksFile === undefined ? undefined : readHealthChecks(options.healthChecksFile);
  const kubeConfig = loadKubeconfig(options.env, options.kubeconfig);
  const observation = await observeLocally(request, { kubeConfig, healthChecks, analyses: options.analyses, logger: stderrLogger(stderr) });
  const cancel = (signal: string) => void observation.cancel(`interrupted (${signal})`);
  const onInterrupt = () => cancel("SIGINT");
  const onTerminate = () => cancel("SIGTERM");
  // Once: a second Ctrl-C while the cancelled verdict is going out ends the process as usual.
  process.once("SIGINT", onInterrupt);
  process.once("SIGTERM", onTerminate);
  return {
    run: observation,
    current: () => observation.get(),
    close: async () => {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerminate);
      observation.close();
      return undefined;
    },
  };
}

/**
 * The engine's and informers' warnings and errors as lines on stderr (a Warning event watch the
 * user may not make, an internal error); their routine info and debug lines are the service's
 * log, not a CLI user's.
 */
function stderrLogger(stderr: CommandIo["stderr"]): Logger {
  const line = (level: string) => (fields: object, message: string) => {
    const detail = (fields as { message?: unknown }).message;
    stderr.write(`stagewatch: ${level}: ${message}${typeof detail === "string" ? `: ${detail}` : ""}\n`);
  };
  const ignore = () => {};
  return { debug: ignore, info: ignore, warn: line("warning"), error: line("error") };
}

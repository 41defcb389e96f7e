// The cluster local mode observes, found as kubectl finds it: `--kubeconfig`, else $KUBECONFIG (a
// list: the first file that sets a current context decides it, later files add what earlier ones
// lack), else ~/.kube/config, else the pod's service account (in-cluster). `--context` picks
// another context of the same files. The environment is the command's own (io.env), not the
// process's, as for every other command.
//
// Authentication is client-node's: client certificates and keys (inline or files), tokens and
// token files, `exec` credential plugins (EKS, GKE, AKS style entries; run with the environment
// the plugin entry names) and the OIDC auth provider with refresh.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { ObserverUnavailableError } from "../../bus/client/clientErrors.js";
import { UsageError } from "../io/usage.js";

export interface KubeconfigChoice {
  /** `--kubeconfig PATH`. */
  readonly file?: string | undefined;
  /** `--context NAME`. */
  readonly context?: string | undefined;
}

export function loadKubeconfig(env: NodeJS.ProcessEnv, choice: KubeconfigChoice = {}): KubeConfig {
  const kubeConfig = new KubeConfig();
  const files = kubeconfigFiles(env, choice.file);
  try {
    if (files.length > 0) {
      kubeConfig.loadFromFile(files[0]!);
      for (const file of files.slice(1)) {
        const next = new KubeConfig();
        next.loadFromFile(file);
        // Kept: the first file's current context, as kubectl keeps it.
        kubeConfig.mergeConfig(next, true);
      }
    } else if (env["KUBERNETES_SERVICE_HOST"]) {
      kubeConfig.loadFromCluster();
    } else {
      // No kubeconfig anywhere and not in a pod: no cluster to observe, as "no observer" (exit 3).
      throw new ObserverUnavailableError(
        "no cluster to observe: no kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config) and not in a pod; or set NATS_URL to ask a stagewatch service",
      );
    }
  } catch (error) {
    if (error instanceof ObserverUnavailableError) throw error;
    throw new UsageError(`kubeconfig ${files.join(delimiter) || "(in-cluster)"}: ${(error as Error).message}`, { cause: error });
  }
  if (choice.context !== undefined) {
    if (kubeConfig.getContextObject(choice.context) === null) {
      throw new UsageError(`--context: no context '${choice.context}' in ${files.join(delimiter)} (contexts: ${kubeConfig.getContexts().map((c) => c.name).join(", ") || "none"})`);
    }
    kubeConfig.setCurrentContext(choice.context);
  }
  if (kubeConfig.getCurrentCluster() === null) {
    throw new UsageError(`kubeconfig ${files.join(delimiter)}: the current context '${kubeConfig.getCurrentContext()}' names no cluster`);
  }
  return kubeConfig;
}

/** kubectl's order: the flag, the variable's list (files that do not exist skipped), ~/.kube/config. */
function kubeconfigFiles(env: NodeJS.ProcessEnv, flag: string | undefined): string[] {
  if (flag !== undefined) {
    if (!existsSync(flag)) throw new UsageError(`--kubeconfig: ${flag} does not exist`);
    return [flag];
  }
  const list = env["KUBECONFIG"];
  if (list) return list.split(delimiter).filter((file) => file !== "" && existsSync(file));
  const home = env["HOME"];
  const file = home === undefined ? undefined : join(home, ".kube", "config");
  return file !== undefined && existsSync(file) ? [file] : [];
}

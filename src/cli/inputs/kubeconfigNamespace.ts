// The namespace `kubectl apply` puts a manifest without one into: the kubeconfig's current
// context's namespace. Read here as the small YAML lookup it is, because loading the Kubernetes
// client for it cost `observe` about 0.6 s of start-up.
//
// kubectl's loading rules (client-go clientcmd): $KUBECONFIG is a list of files (':' on Linux,
// ';' on Windows), files that do not exist are skipped, the first file that sets current-context
// decides it, and the first file that defines a context of that name decides its namespace.
// Without $KUBECONFIG, ~/.kube/config. With no kubeconfig at all inside a pod, the service
// account's namespace, as kubectl and @kubernetes/client-node use it in-cluster. Anything
// unreadable or malformed answers "default", as before: the service checks the namespaces it is
// sent, and kubectl would not have applied with such a file anyway.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { parse } from "yaml";

export const fallbackNamespace = "default";

export interface KubeconfigLocations {
  /** The home directory of `~/.kube/config`. */
  home?: string;
  /** Where a pod's service account token and namespace are mounted. */
  serviceAccountDirectory?: string;
  /** `--context`: this context's namespace instead of the current context's. */
  context?: string;
}

export async function kubeconfigNamespace(env: NodeJS.ProcessEnv, locations: KubeconfigLocations = {}): Promise<string> {
  const list = env["KUBECONFIG"];
  const files = list ? list.split(delimiter).filter(Boolean) : [join(locations.home ?? homedir(), ".kube", "config")];
  const configs: unknown[] = [];
  for (const file of files) {
    const text = await readIfExists(file);
    if (text === undefined) continue;
    try {
      configs.push(parse(text));
    } catch {
      return fallbackNamespace;
    }
  }
  if (configs.length === 0) return (await inClusterNamespace(env, locations)) ?? fallbackNamespace;
  const current = locations.context ?? configs.map((config) => stringField(config, "current-context")).find(Boolean);
  if (current === undefined) return fallbackNamespace;
  for (const config of configs) {
    const context = contextsOf(config).find((entry) => stringField(entry, "name") === current);
    if (context !== undefined) return stringField(fieldOf(context, "context"), "namespace") || fallbackNamespace;
  }
  return fallbackNamespace;
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

async function inClusterNamespace(env: NodeJS.ProcessEnv, locations: KubeconfigLocations): Promise<string | undefined> {
  if (!env["KUBERNETES_SERVICE_HOST"]) return undefined;
  const directory = locations.serviceAccountDirectory ?? "/var/run/secrets/kubernetes.io/serviceaccount";
  return (await readIfExists(join(directory, "namespace")))?.trim() || undefined;
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

function stringField(value: unknown, name: string): string | undefined {
  const field = fieldOf(value, name);
  return typeof field === "string" && field !== "" ? field : undefined;
}

function contextsOf(config: unknown): unknown[] {
  const contexts = fieldOf(config, "contexts");
  return Array.isArray(contexts) ? contexts : [];
}

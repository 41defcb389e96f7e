/**
 * What an e2e test needs of the cluster and NATS server the global setup provided: clients, a
 * namespace of its own, the fault labels kwok understands, and a poll for "eventually".
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { ApiException, CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { inject } from "vitest";

export {
  DEFAULT_TERMINATION_MESSAGE,
  EXIT_CODE_ANNOTATION,
  FAULT_LABEL,
  Fault,
  TERMINATION_MESSAGE_ANNOTATION,
} from "../../cluster/faults.ts";

/** Label on every namespace `createNamespace` makes, to find leftovers on a shared cluster. */
export const E2E_NAMESPACE_LABEL = "stagewatch.io/e2e";

export function kubeconfigPath(): string {
  return inject("kubeconfigPath");
}

export function natsUrl(): string {
  return inject("natsUrl");
}

export function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath());
  return kc;
}

/**
 * Creates a namespace named `<prefix>-<random>` and waits until pods can be created in it (its
 * default ServiceAccount exists: the ServiceAccount admission plugin rejects pods before that).
 */
export async function createNamespace(prefix: string): Promise<string> {
  const base = prefix.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 50) || "e2e";
  const name = `${base}-${randomBytes(4).toString("hex")}`;
  const core = kubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { [E2E_NAMESPACE_LABEL]: "true" } } } });
  await eventually(`default ServiceAccount in ${name}`, async () => {
    try {
      return await core.readNamespacedServiceAccount({ name: "default", namespace: name });
    } catch (error) {
      if (error instanceof ApiException && error.code === 404) return undefined;
      throw error;
    }
  });
  return name;
}

/** Deletes a namespace made by `createNamespace` (and everything in it) without waiting. */
export async function deleteNamespace(name: string): Promise<void> {
  const core = kubeConfig().makeApiClient(CoreV1Api);
  try {
    await core.deleteNamespace({ name });
  } catch (error) {
    if (!(error instanceof ApiException && error.code === 404)) throw error;
  }
}

export class EventuallyError extends Error {
  override name = "EventuallyError";
}

/**
 * Polls `probe` until it returns a value other than undefined and returns that value. A probe
 * that throws is retried too; its last error becomes the cause when the timeout runs out. The
 * timeout only bounds the wait: tests assert on what the cluster did, never on how long it took.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new EventuallyError(`${what}: not seen within ${timeoutMs / 1000}s${detail}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
  }
}

/** A kubeconfig for the admin kubeconfig's cluster whose only credential is `token`. */
export function tokenKubeconfig(path: string, token: string): KubeConfig {
  const cluster = kubeConfig().getCurrentCluster();
  if (cluster === null) throw new Error("the e2e kubeconfig names no cluster");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "e2e",
        cluster: {
          server: cluster.server,
          ...(cluster.caData !== undefined && { "certificate-authority-data": cluster.caData }),
          ...(cluster.caFile !== undefined && { "certificate-authority": cluster.caFile }),
          ...(cluster.skipTLSVerify && { "insecure-skip-tls-verify": true }),
        },
      },
    ],
    users: [{ name: "stagewatch", user: { token } }],
    contexts: [{ name: "e2e", context: { cluster: "e2e", user: "stagewatch" } }],
    "current-context": "e2e",
  };
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

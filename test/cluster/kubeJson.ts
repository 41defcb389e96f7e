/**
 * Raw JSON requests to an API server with a kubeconfig's credentials, for scripts and tests that
 * need objects exactly as the server writes them (client-node's typed clients turn timestamps
 * into Dates and drop unknown fields) or subresources its generic client does not reach.
 */
import { HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { fetch } from "undici";

export class KubeJsonError extends Error {
  override name = "KubeJsonError";
  readonly status: number;
  readonly body: unknown;
  constructor(message: string, status: number, body: unknown) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export type Json = Record<string, unknown>;

export async function kubeJson(kubeConfig: KubeConfig, method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<Json> {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const context = new RequestContext(cluster.server.replace(/\/+$/, "") + path, HttpMethod[method]);
  context.setHeaderParam("Accept", "application/json");
  if (body !== undefined) context.setHeaderParam("Content-Type", method === "PATCH" ? "application/merge-patch+json" : "application/json");
  await kubeConfig.applySecurityAuthentication(context);
  const dispatcher = context.getDispatcher();
  try {
    const response = await fetch(context.getUrl(), {
      method,
      headers: context.getHeaders(),
      ...(body !== undefined && { body: JSON.stringify(body) }),
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await response.text();
    const parsed = text === "" ? {} : (JSON.parse(text) as Json);
    if (!response.ok) throw new KubeJsonError(`${method} ${path}: ${response.status}: ${String(parsed.message ?? text)}`, response.status, parsed);
    return parsed;
  } finally {
    await dispatcher?.destroy().catch(() => undefined);
  }
}

export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

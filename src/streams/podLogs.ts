// One read of a container's log through the API server's pods/log subresource (which proxies to
// the node's kubelet): the only request stagewatch makes outside its informers, once per failed
// observation that asked for it. Bounded on both ends: the kubelet sends at most `tailLines` and
// `limitBytes`, and the caller's signal abandons a read that takes too long (a node gone away
// answers only when its connection times out).
import type { KubeConfig } from "@kubernetes/client-node";
import { ConnectionPool } from "./connectionPool.js";
import { kubeGetText } from "./httpTransport.js";
import { KubeRequestError } from "./transport.js";

export interface PodLogRequest {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** The previous instance's log (a restarted container). */
  readonly previous: boolean;
  readonly tailLines: number;
  readonly limitBytes: number;
}

/** Resolves with the log text; rejects with KubeRequestError (refused, gone, unreachable) or the signal's reason. */
export type PodLogReader = (request: PodLogRequest, signal: AbortSignal) => Promise<string>;

export function podLogPath(namespace: string, pod: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`;
}

export function kubePodLogReader(kubeConfig: KubeConfig): PodLogReader {
  const pool = new ConnectionPool(kubeConfig);
  return (request, signal) =>
    new Promise<string>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const subscription = kubeGetText(pool, {
        path: podLogPath(request.namespace, request.pod),
        query: {
          container: request.container,
          previous: request.previous || undefined,
          tailLines: request.tailLines,
          limitBytes: request.limitBytes,
        },
        // The API server refuses text/plain in Accept (406) although the body is plain text.
        accept: "*/*",
      }).subscribe({
        next: resolve,
        error: (error: unknown) => {
          signal.removeEventListener("abort", abort);
          reject(error instanceof KubeRequestError ? error : new KubeRequestError(String(error), { cause: error }));
        },
        complete: () => signal.removeEventListener("abort", abort),
      });
      const abort = () => {
        subscription.unsubscribe();
        reject(signal.reason);
      };
      signal.addEventListener("abort", abort, { once: true });
    });
}

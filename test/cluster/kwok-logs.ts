/**
 * Container logs in the local cluster: kwok plays the kubelet's /containerLogs from files named by
 * ClusterLogs objects (kwok.x-k8s.io/v1alpha1, served because the harness starts kwok with
 * `--enable-crds=ClusterLogs`), and the API server's pods/log proxies there, so a client reads
 * them exactly as from a real node. The files are read by the kwok process: same machine.
 */
import { writeFileSync } from "node:fs";

export const CLUSTER_LOGS_PATH = "/apis/kwok.x-k8s.io/v1alpha1/clusterlogs";

export interface ContainerLogFiles {
  /** The current instance's log. */
  logsFile: string;
  /** What `previous=true` reads: the last terminated instance's log. */
  previousLogsFile?: string;
  /** Only these containers (default: every container of the selected pods). */
  containers?: readonly string[];
}

/** A ClusterLogs serving `files` for every pod in `namespace` (named after the namespace). */
export function clusterLogs(namespace: string, files: readonly ContainerLogFiles[]) {
  return {
    apiVersion: "kwok.x-k8s.io/v1alpha1",
    kind: "ClusterLogs",
    metadata: { name: namespace },
    spec: {
      selector: { matchNamespaces: [namespace] },
      logs: files.map((file) => ({
        ...(file.containers && { containers: [...file.containers] }),
        logsFile: file.logsFile,
        ...(file.previousLogsFile && { previousLogsFile: file.previousLogsFile }),
        follow: false,
      })),
    },
  };
}

/**
 * Writes `lines` as a container runtime writes a log (the CRI format kwok's reader parses:
 * `<RFC 3339 nano time> <stdout|stderr> F <line>`), one second apart from `start`.
 */
export function writeCriLog(path: string, lines: readonly string[], start = Date.parse("2026-12-01T09:14:02Z")): void {
  const text = lines.map((line, i) => `${new Date(start + i * 1000).toISOString().replace("Z", "000000Z")} stdout F ${line}\n`).join("");
  writeFileSync(path, text);
}

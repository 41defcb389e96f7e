/**
 * Paths of the control plane's binaries, built once per machine by build.sh (which reuses what it
 * built before, so calling it on every start costs a fraction of a second).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Binaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  /** Not part of the control plane: the client the pipeline tests apply with. */
  kubectl: string;
  kwok: string;
  natsServer: string;
  kubernetesVersion: string;
}

export class BuildError extends Error {
  override name = "BuildError";
}

const BUILD_SCRIPT = fileURLToPath(new URL("./build.sh", import.meta.url));

/** Runs build.sh (progress on this process's stderr) and returns what it built or found. */
export function buildOrReuseBinaries(buildScript = BUILD_SCRIPT): Binaries {
  const result = spawnSync("bash", [buildScript], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (result.error !== undefined) throw new BuildError(`could not run ${buildScript}`, { cause: result.error });
  if (result.status !== 0) {
    throw new BuildError(`${buildScript} failed (exit ${result.status ?? result.signal}); its output is above`);
  }
  const paths = new Map<string, string>();
  for (const line of result.stdout.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) paths.set(line.slice(0, eq), line.slice(eq + 1));
  }
  const get = (name: string): string => {
    const value = paths.get(name);
    if (value === undefined) throw new BuildError(`${buildScript} did not report ${name}`);
    return value;
  };
  return {
    etcd: get("etcd"),
    kubeApiserver: get("kube-apiserver"),
    kubeControllerManager: get("kube-controller-manager"),
    kubeScheduler: get("kube-scheduler"),
    kubectl: get("kubectl"),
    kwok: get("kwok"),
    natsServer: get("nats-server"),
    kubernetesVersion: get("kubernetes-version"),
  };
}

/**
 * A test tool that is no part of the control plane (`jaeger`, `dsse-verify`): `build.sh TOOL`
 * builds it once per machine, or finds it, and prints `TOOL=PATH`; a cluster start never waits for it.
 */
export function buildOrReuseTool(tool: "jaeger" | "dsse-verify", buildScript = BUILD_SCRIPT): string {
  const result = spawnSync("bash", [buildScript, tool], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (result.status !== 0) throw new BuildError(`${buildScript} ${tool} failed (exit ${result.status ?? result.signal}); its output is above`);
  const line = result.stdout.split("\n").find((text) => text.startsWith(`${tool}=`));
  if (line === undefined) throw new BuildError(`${buildScript} did not report ${tool}`);
  return line.slice(tool.length + 1);
}

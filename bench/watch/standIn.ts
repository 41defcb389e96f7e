// Starting the watch stand-in (server.ts) in a process of its own, and a kubeconfig pointing at it.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import type { WatchClusterSize } from "./cluster.ts";
import type { ScalePhasesOptions } from "./scalePhases.ts";

/** The server for `size` with `passes` passes of pod updates (or the phases of `scale`); `core`: pinned to that core with taskset. */
export async function startStandIn(size: WatchClusterSize & { passes: number; scale?: ScalePhasesOptions }, core?: number): Promise<{ port: number; stop: () => void }> {
  const script = fileURLToPath(new URL("server.ts", import.meta.url));
  const node = [process.execPath, ...process.execArgv.filter((arg) => arg !== "--expose-gc"), script, JSON.stringify(size)];
  const command = core === undefined ? node : ["taskset", "-c", String(core), ...node];
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the watch server exited (${code})`)));
    lines.once("line", (line) => resolve(Number(line)));
  });
  return { port, stop: () => child.kill() };
}

/** A kubeconfig for the stand-in on `port`: plain HTTP, no credentials. */
export function standInKubeConfig(port: number): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "bench", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "bench" }],
    contexts: [{ name: "bench", cluster: "bench", user: "bench" }],
    currentContext: "bench",
  });
  return kubeConfig;
}

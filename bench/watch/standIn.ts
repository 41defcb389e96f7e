// Starting the watch stand-ins (server.ts, pacedServer.ts) in processes of their own, and a kubeconfig pointing at one.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { KubeConfig } from "@kubernetes/client-node";
import type { WatchClusterSize } from "./cluster.ts";
import type { ScalePhasesOptions } from "./scalePhases.ts";

/** The server for `size` with `passes` passes of pod updates (or the phases of `scale`); `core`: pinned to that core with taskset. */
export function startStandIn(size: WatchClusterSize & { passes: number; scale?: ScalePhasesOptions }, core?: number): Promise<{ port: number; stop: () => void }> {
  return startServerProcess("server.ts", size, core);
}

/** `script`, a server of this folder, in a process of its own with `argument` (as JSON); resolves once it prints its port. */
export async function startServerProcess(script: string, argument: unknown, core?: number): Promise<{ port: number; stop: () => void }> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  const node = [process.execPath, ...process.execArgv.filter((arg) => arg !== "--expose-gc"), path, JSON.stringify(argument)];
  const command = core === undefined ? node : ["taskset", "-c", String(core), ...node];
  const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
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

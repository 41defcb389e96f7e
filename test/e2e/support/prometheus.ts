/**
 * Prometheus as the e2e tests run it: Debian's package (test/cluster/install-prometheus.sh),
 * started on a free loopback port with a config and storage directory of the test's own, scraping
 * the targets it is given every second.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePorts, http, waitFor } from "../../cluster/probes.ts";
import { logTail } from "../../cluster/processes.ts";
import { startLogged, type RunningProcess } from "../../cluster/stagewatch.ts";

const INSTALL_SCRIPT = fileURLToPath(new URL("../../cluster/install-prometheus.sh", import.meta.url));

/** Runs install-prometheus.sh (apt-get the first time on a machine; asynchronous, it can take a while). */
export async function installPrometheus(): Promise<{ prometheus: string; promtool: string }> {
  const child = spawn("bash", [INSTALL_SCRIPT], { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  if (status !== 0) throw new Error(`${INSTALL_SCRIPT} failed (exit ${status}); its output is above`);
  const paths = Object.fromEntries(stdout.trim().split("\n").map((line) => line.split("=", 2) as [string, string]));
  if (!paths.prometheus || !paths.promtool) throw new Error(`${INSTALL_SCRIPT} did not report prometheus and promtool`);
  return { prometheus: paths.prometheus, promtool: paths.promtool };
}

export interface RunningPrometheus {
  readonly url: string;
  readonly process: RunningProcess;
}

/** A Prometheus in `dir` scraping `targets` (host:port, job `job`) every second, ready to query. */
export async function startPrometheus(binary: string, dir: string, job: string, targets: readonly string[]): Promise<RunningPrometheus> {
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${port}`;
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    JSON.stringify({
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      scrape_configs: [{ job_name: job, honor_labels: true, static_configs: [{ targets }] }],
    }),
  );
  mkdirSync(join(dir, "tsdb"), { recursive: true });
  const started = startLogged(
    binary,
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"],
    { cwd: dir, env: { PATH: process.env.PATH }, logFile: join(dir, "prometheus.log") },
  );
  await waitFor("prometheus /-/ready", async () => (await http(`${url}/-/ready`)).status === 200, {
    timeoutMs: 60_000,
    abort: () => (started.exited() ? `exited:\n${logTail(started.logFile)}` : undefined),
  });
  return { url, process: started };
}

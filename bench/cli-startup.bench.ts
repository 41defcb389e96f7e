// How soon `stagewatch observe` sends its request after the process starts, against bare Node in
// the same run: spawn to the request's arrival at a NATS subscriber standing in for the service
// (it answers `unavailable`, so observe exits at once), and spawn to exit for `node -e 0`,
// `stagewatch --help` and `stagewatch observe --help`. The CLI is the built one (`dist/cli.js` and
// its bundled chunks, what `npm i -g` and the image run), built first. Node's compile cache is measured both ways:
// the first run with an empty cache (what a fresh CI runner pays once) and the runs after it, and
// with the cache turned off. Then 20 observe processes started at once on this machine, as 20 CI
// jobs on one runner: the time until the last request arrived.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "@nats-io/transport-node";
import { buildOrReuseBinaries } from "../test/cluster/binaries.ts";
import { startNatsServer } from "../test/cluster/nats.ts";
import { writeResults } from "./support/results.ts";

const rounds = 15;
const concurrent = 20;
const root = fileURLToPath(new URL("../", import.meta.url));
const cli = join(root, "dist", "cli.js");

// What `npm run build` does: compile, then bundle the command line (scripts/bundle-cli.mjs).
for (const step of [[join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], [join(root, "scripts/bundle-cli.mjs")]]) {
  const build = spawnSync(process.execPath, step, { cwd: root, stdio: "inherit" });
  if (build.status !== 0) throw new Error(`npm run build failed: ${step.join(" ")}`);
}

const scratch = mkdtempSync(join(tmpdir(), "stagewatch-cli-startup-"));
const manifest = join(scratch, "web.yaml");
writeFileSync(manifest, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config}\n");
const kubeconfig = join(scratch, "kubeconfig");
writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\ncurrent-context: ci\ncontexts:\n- name: ci\n  context: {cluster: c, user: u, namespace: payments}\n");

const nats = await startNatsServer(buildOrReuseBinaries().natsServer, join(scratch, "nats"));
const nc = await connect({ servers: nats.url });
let arrivals: ((atMs: number) => void)[] = [];
nc.subscribe("stagewatch.observe", {
  callback: (_, message) => {
    const atMs = performance.now();
    arrivals.shift()?.(atMs);
    message.respond(JSON.stringify({ ok: false, error: { code: "unavailable", message: "benchmark stand-in", issues: [] } }));
  },
});

type Cache = "off" | string;
function environment(cache: Cache): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env["PATH"], HOME: scratch, NATS_URL: nats.url, KUBECONFIG: kubeconfig };
  if (cache === "off") env["NODE_DISABLE_COMPILE_CACHE"] = "1";
  else env["NODE_COMPILE_CACHE"] = cache;
  return env;
}

/** Milliseconds from spawn to exit. */
function untilExit(args: string[], cache: Cache): Promise<number> {
  const start = performance.now();
  const child = spawn(process.execPath, args, { env: environment(cache), stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", () => resolve(performance.now() - start));
  });
}

const observeArgs = [cli, "observe", "-f", manifest, "--deployment", "web", "--timeout", "30s", "--progress", "plain"];

/** Milliseconds from spawn to the request's arrival; resolves once the process has exited too. */
async function untilRequest(cache: Cache): Promise<number> {
  const arrived = new Promise<number>((resolve) => arrivals.push(resolve));
  const start = performance.now();
  const exited = untilExit(observeArgs, cache);
  const atMs = await arrived;
  await exited;
  return atMs - start;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round1 = (value: number) => Math.round(value * 10) / 10;

const warmCache = join(scratch, "compile-cache");
const coldFirstRequestMs = await untilRequest(warmCache);
const samples = { node: [] as number[], help: [] as number[], observeHelp: [] as number[], request: [] as number[], requestNoCache: [] as number[] };
// Interleaved, so a burst of load from elsewhere on the machine hits every series alike.
for (let i = 0; i < rounds; i++) {
  samples.node.push(await untilExit(["-e", "0"], "off"));
  samples.help.push(await untilExit([cli, "--help"], warmCache));
  samples.observeHelp.push(await untilExit([cli, "observe", "--help"], warmCache));
  samples.request.push(await untilRequest(warmCache));
  samples.requestNoCache.push(await untilRequest("off"));
}

const burstStart = performance.now();
arrivals = [];
const burstArrivals = Array.from({ length: concurrent }, () => new Promise<number>((resolve) => arrivals.push(resolve)));
const burstExits = Array.from({ length: concurrent }, () => untilExit(observeArgs, warmCache));
const lastArrivalMs = Math.max(...(await Promise.all(burstArrivals))) - burstStart;
await Promise.all(burstExits);

await nc.close();
await nats.stop();

const nodeMs = median(samples.node);
const row = (values: number[]) => ({ medianMs: round1(median(values)), minMs: round1(Math.min(...values)), maxMs: round1(Math.max(...values)), ratioToNode: round1(median(values) / nodeMs) });
const results = {
  rounds,
  cores: cpus().length,
  loadAverage: (await import("node:os")).loadavg().map(round1),
  nodeE0: row(samples.node),
  help: row(samples.help),
  observeHelp: row(samples.observeHelp),
  observeRequestSent: row(samples.request),
  observeRequestSentWithoutCompileCache: row(samples.requestNoCache),
  observeRequestSentFirstRunEmptyCacheMs: round1(coldFirstRequestMs),
  concurrentObserves: { processes: concurrent, lastRequestArrivedMs: Math.round(lastArrivalMs) },
};
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${writeResults("cli-startup", results)}`);

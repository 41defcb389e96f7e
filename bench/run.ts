// Runs the benchmarks: every bench/*.bench.ts, or those named on the command line
// (`npm run bench -- streams-memory`). Each runs in a fresh Node process with --expose-gc, so
// one benchmark's garbage and JIT state never skew another's numbers (memory ones above all).
// A benchmark is a script that measures and calls writeResults (bench/support/results.ts).
// `npm run bench -- cluster [flags]` is the live-cluster benchmark (bench/cluster/run.ts) and
// `npm run bench -- beside [flags]` observe beside Helm and kubectl (bench/cluster/beside.ts) and
// `npm run bench -- concurrent [flags]` the same tools at 5 to 50 releases at once
// (bench/cluster/concurrent.ts): never part of a plain `npm run bench`, as they start a cluster of
// their own and take minutes.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const directory = fileURLToPath(new URL(".", import.meta.url));
const suffix = ".bench.ts";
const available = readdirSync(directory)
  .filter((file) => file.endsWith(suffix))
  .map((file) => file.slice(0, -suffix.length))
  .sort();
const wanted = process.argv.slice(2);
const nodeArgs = [
  "--expose-gc",
  // src uses TypeScript that type stripping alone cannot run (parameter properties in bus/).
  "--experimental-transform-types",
  "--disable-warning=ExperimentalWarning",
  "--import",
  fileURLToPath(new URL("support/resolve-ts.ts", import.meta.url)),
];
// Those that start a cluster of their own (or take one with --kubeconfig and --nats-url).
const clusterBenchmarks: Record<string, string> = { cluster: "cluster/run.ts", beside: "cluster/beside.ts", concurrent: "cluster/concurrent.ts" };
const clusterScript = wanted[0] === undefined ? undefined : clusterBenchmarks[wanted[0]];
if (clusterScript !== undefined) {
  const run = spawnSync(process.execPath, [...nodeArgs, `${directory}${clusterScript}`, ...wanted.slice(1)], { stdio: "inherit" });
  process.exit(run.status ?? 1);
}
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${available.join(", ")}`);
  process.exit(2);
}

let failed = 0;
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`# ${name}`);
  const run = spawnSync(
    process.execPath,
    [...nodeArgs, `${directory}${name}${suffix}`],
    { stdio: "inherit" },
  );
  if (run.status !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);

// Bundles the command line after `tsc` (npm run build): dist/cli.js becomes one file for the
// dispatcher, and each command's module, imported dynamically by src/cli/main.ts, a chunk of its
// own in dist/cli-bundle/ with everything it imports, our modules and the packages observe uses
// (the NATS client, zod, yaml). Node then resolves and reads a handful of files at start-up
// instead of about 250 (zod alone is 95): that, not compiling, was most of `observe`'s start-up.
// Code shared by several commands lands in shared chunks, so every module still exists once and
// `instanceof` across commands and the error report holds.
// Packages only `serve` and `demo` use stay outside (imported from node_modules as before): the
// Kubernetes client and the service's dependencies gain nothing from bundling and some of them
// load files of their own at run time.
// The chunks sit one directory below dist/, as dist/cli/*.js do, so `import.meta.url`-relative
// paths (the demo's examples) resolve the same.
import { build } from "esbuild";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const manifest = JSON.parse(readFileSync(new URL("package.json", `file://${root}`), "utf8"));
const bundled = new Set(["@nats-io/jetstream", "@nats-io/kv", "@nats-io/nkeys", "@nats-io/transport-node", "yaml", "zod"]);
const external = Object.keys(manifest.dependencies).filter((name) => !bundled.has(name));

// Chunk names carry content hashes: the previous build's would stay beside the new ones.
rmSync(new URL("dist/cli-bundle/", `file://${root}`), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { cli: "src/cli.ts" },
  outdir: "dist",
  chunkNames: "cli-bundle/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  tsconfig: "tsconfig.build.json",
  external: [...external, ...external.map((name) => `${name}/*`)],
  // yaml's build for Node is CommonJS (a wrapper per file, nothing tree-shaken, and a `require`
  // the chunks must be given); its ES module build is the same code, and differs only in warning
  // through console.warn instead of process.emitWarning.
  alias: { yaml: "./node_modules/yaml/browser/index.js" },
  // Any CommonJS left requires Node's modules: give the chunks a real `require`.
  banner: { js: 'import { createRequire as __stagewatchRequire } from "node:module"; const require = __stagewatchRequire(import.meta.url);' },
  sourcemap: "linked",
  allowOverwrite: true,
  logLevel: "warning",
});

// Bundles the command line after `tsc` (npm run build): dist/cli.js becomes one file for the
// dispatcher, and each command's module, imported dynamically by src/cli/main.ts, a chunk of its
// own in dist/cli-bundle/ with everything it imports, our modules and the packages observe uses
// (the NATS client, zod, yaml, the Kubernetes client...). Node then resolves and reads a handful of files at start-up
// instead of about 250 (zod alone is 95): that, not compiling, was most of `observe`'s start-up.
// Code shared by several commands lands in shared chunks, so every module still exists once and
// `instanceof` across commands and the error report holds.
// Every package is inside, the service's too. Loaded from node_modules, `serve` held 44 MiB of
// heap and 157 MiB resident before it connected to anything, most of it the Kubernetes client's
// 2,742 generated model modules (its config module imports the whole generated client); bundled,
// tree-shaking keeps what the service reaches: 23 MiB of heap and 114 MiB resident
// (docs/design/performance.md, "Memory outside the heap").
// The chunks sit one directory below dist/, as dist/cli/*.js do, so `import.meta.url`-relative
// paths (the demo's examples) resolve the same.
import { build } from "esbuild";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));

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
  // yaml's build for Node is CommonJS (a wrapper per file, nothing tree-shaken, and a `require`
  // the chunks must be given); its ES module build is the same code, and differs only in warning
  // through console.warn instead of process.emitWarning.
  alias: { yaml: "./node_modules/yaml/browser/index.js" },
  // Any CommonJS left requires Node's modules: give the chunks a real `require`.
  banner: { js: 'import { createRequire as __stagewatchRequire } from "node:module"; const require = __stagewatchRequire(import.meta.url);' },
  // V8 keeps each chunk's source text for lazy compilation, and one character outside Latin-1 (a
  // comment's "§", a legal comment's author) stores the whole chunk as UTF-16: the service's main
  // chunk held 12.7 MiB of source that way. Without comments and indentation it is 3.5 MB, one
  // byte a character. Names are kept, so a stack trace still names its functions (the lines and
  // columns are the bundle's; the linked source map maps them back). Licence comments go to
  // linked .LEGAL.txt files beside the chunks.
  minifyWhitespace: true,
  legalComments: "linked",
  sourcemap: "linked",
  allowOverwrite: true,
  logLevel: "warning",
});

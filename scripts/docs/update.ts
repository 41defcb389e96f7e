// `npm run docs:update`: writes docs/reference/ as the code generates it (pages.ts), and removes a
// page there that the code no longer generates (a command gone): the folder is this script's.
// Node runs it on the TypeScript sources, as bench/run.ts runs benchmarks: type stripping with
// parameter properties transformed, and bench/support/resolve-ts.ts for src's `./x.js` imports.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { referencePages, referenceRoot } from "./pages.ts";

const pages = await referencePages();
for (const [path, text] of pages) {
  mkdirSync(dirname(join(referenceRoot, path)), { recursive: true });
  writeFileSync(join(referenceRoot, path), text);
}
for (const path of readdirSync(referenceRoot, { recursive: true, encoding: "utf8" })) {
  if (path.endsWith(".md") && !pages.has(path)) rmSync(join(referenceRoot, path));
}
process.stdout.write(`docs/reference/: ${pages.size} pages written\n`);

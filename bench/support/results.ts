// Where a benchmark leaves its numbers: bench/results/<name>.json, with the machine they were
// measured on, so results from different runs can be told apart.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";

export function writeResults(name: string, results: Record<string, unknown>): string {
  const directory = new URL("../results/", import.meta.url);
  mkdirSync(directory, { recursive: true });
  const file = new URL(`${name}.json`, directory);
  const document = {
    benchmark: name,
    measuredAt: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus()[0]?.model ?? "unknown",
    ...results,
  };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return file.pathname;
}

/** Forces a full collection; the runner starts every benchmark with --expose-gc. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run through bench/run.ts (node --expose-gc)");
  gc();
  gc();
}

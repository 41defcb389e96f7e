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

/**
 * Bytes of heap one kept object costs: heap growth over `texts`, each kept by `keep`, after full
 * collections; the median of `rounds` rounds, `release` dropping what was kept between them.
 */
export function heapBytesPerObject(texts: readonly string[], rounds: number, keep: (text: string) => void, release: () => void): number {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (const text of texts) keep(text);
    collectGarbage();
    samples.push((process.memoryUsage().heapUsed - before) / texts.length);
    release();
  }
  return Math.round(samples.sort((a, b) => a - b)[Math.floor(rounds / 2)]!);
}

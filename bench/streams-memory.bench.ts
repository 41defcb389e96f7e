// Heap per cached pod: as parsed from the API server's JSON, stripped to what the rules read,
// and stripped and held in the informer's cache (the real cost). Side by side in one process, each
// over 10,000 distinct pods built from a realistic running pod (src/streams/fixtures), so names,
// UIDs, IPs and container IDs are separate strings as in a real cluster, while JSON keys are
// shared the way V8 shares them.
import { readFileSync } from "node:fs";
import { ObjectCache } from "../src/streams/cache.ts";
import { stripObject } from "../src/streams/strip.ts";
import { collectGarbage, writeResults } from "./support/results.ts";

const pods = 10_000;
const rounds = 3;
const namespaces = 100;

const template = JSON.stringify(JSON.parse(readFileSync(new URL("../src/streams/fixtures/pod-running.json", import.meta.url), "utf8")));
const hex = (i: number, width: number) => i.toString(16).padStart(width, "0");

/** The fixture pod's JSON text with this pod's own identity, IP, container ID and namespace. */
function podJson(i: number): string {
  return template
    .replaceAll("api-7f9c6d5b8-x2kqv", `api-7f9c6d5b8-${i.toString(36).padStart(5, "0")}`)
    .replaceAll("d2a7c6e1-3b5f-4a90-8e1d-7c6b5a4f3e2d", `d2a7c6e1-3b5f-4a90-8e1d-${hex(i, 12)}`)
    .replaceAll('"184467"', `"${184_467 + i}"`)
    .replaceAll("10.244.1.17", `10.244.${(i >> 8) & 255}.${i & 255}`)
    .replaceAll("9b1f0c7e5d3a2b8c4e6f7a1d0c9b8e7f6a5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b", `${hex(i, 8)}${"9b1f0c7e".repeat(7)}`)
    .replaceAll('"namespace":"payments"', `"namespace":"team-${i % namespaces}"`);
}

const target = { apiVersion: "v1", kind: "Pod", kindKey: "core/Pod", metadataOnly: false };

/** Bytes of heap one kept object costs: heap growth over `pods` objects, after full collections. */
function bytesPerPod(keep: (i: number) => void, release: () => void): number {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < pods; i++) keep(i);
    collectGarbage();
    samples.push((process.memoryUsage().heapUsed - before) / pods);
    release();
  }
  return Math.round(samples.sort((a, b) => a - b)[Math.floor(rounds / 2)]!);
}

let held: unknown[] = [];
const parsed = bytesPerPod(
  (i) => held.push(JSON.parse(podJson(i))),
  () => (held = []),
);
const stripped = bytesPerPod(
  (i) => held.push(stripObject(JSON.parse(podJson(i)), target)),
  () => (held = []),
);
let cache = new ObjectCache();
const cached = bytesPerPod(
  (i) => cache.upsert(stripObject(JSON.parse(podJson(i)), target)!),
  () => (cache = new ObjectCache()),
);

const results = {
  pods,
  rounds,
  podJsonBytes: Buffer.byteLength(podJson(0)),
  strippedJsonBytes: Buffer.byteLength(JSON.stringify(stripObject(JSON.parse(podJson(0)), target))),
  heapBytesPerPod: { parsed, stripped, strippedInCache: cached },
  parsedToStrippedRatio: Math.round((parsed / stripped) * 10) / 10,
};
const file = writeResults("streams-memory", results);
console.log(JSON.stringify(results.heapBytesPerPod), `(${results.parsedToStrippedRatio}x) -> ${file}`);

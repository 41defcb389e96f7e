// Heap per cached custom resource: objects of kinds the health library judges, as their
// controllers write them (bench/fixtures/custom-resources/*.json, each with managedFields and the
// status its controller writes: a Flux Kustomization's inventory, an Argo Rollout's canary status, a
// Crossplane resource's atProvider), held in the informer's cache the three ways the code has
// kept them: the generic strip (baseline, no check for the kind: scalars of status and conditions),
// the whole status (baseline with a CEL health check configured for the kind) and the fields the
// library's check reads (the code as it is). 2,000 distinct copies of each, with their own names,
// UIDs and revisions, in one process.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { heapBytesPerObject, writeResults } from "./support/results.ts";

const copies = 2_000;
const rounds = 3;

type Strip = typeof import("../src/streams/strip.ts");
type Cache = typeof import("../src/streams/cache.ts");
type Verdicts = typeof import("../src/verdicts/index.ts");

const fixtures = new URL("fixtures/custom-resources/", import.meta.url);
const objects = readdirSync(fixtures)
  .filter((file) => file.endsWith(".json"))
  .sort()
  .map((file) => ({ file, text: readFileSync(new URL(file, fixtures), "utf8") }));

// Status fields that differ between objects of a kind in a real cluster: messages name the object
// or its revision, hashes and revisions are the object's own. Equal parts are shared by the cache
// (src/streams/sharedValues.ts), so copies equal in these would measure the sharing, not the strip.
const ownStatusField = /^(message|.*Revision|.*Hash|stableRS|arn|id|notAfter|notBefore|renewalTime|value|lastHandledReconcileAt)$/;

function ownValues(value: unknown, i: number, key = ""): unknown {
  if (typeof value === "string") return ownStatusField.test(key) ? `${value}-${i}` : value;
  if (Array.isArray(value)) return value.map((element) => ownValues(element, i, key));
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ownValues(v, i, k)]));
  return value;
}

/** The fixture's text with a copy's own name, uid, resourceVersion, messages and revisions. */
function copyOf(text: string, i: number): string {
  const object = JSON.parse(text) as { metadata: Record<string, unknown>; status?: unknown };
  object.metadata.name = `${String(object.metadata.name)}-${i}`;
  object.metadata.uid = `6f1c2d3e-4a5b-4c6d-8e7f-${i.toString(16).padStart(12, "0")}`;
  object.metadata.resourceVersion = String(700_000 + i);
  object.status = ownValues(object.status, i);
  return JSON.stringify(object);
}

function extractBaseline(repository: string): { root: string; commit: string } {
  const commit = execFileSync("git", ["-C", repository, "merge-base", "HEAD", "main"], { encoding: "utf8" }).trim();
  const root = mkdtempSync(join(tmpdir(), "stagewatch-cr-memory-baseline-"));
  execFileSync("tar", ["-x", "-C", root], { input: execFileSync("git", ["-C", repository, "archive", commit, "src"], { maxBuffer: 64 * 1024 * 1024 }) });
  symlinkSync(join(repository, "node_modules"), join(root, "node_modules"), "dir");
  return { root, commit };
}

const repository = fileURLToPath(new URL("..", import.meta.url));
const baseline = extractBaseline(repository);
try {
  const [strip, cache, verdicts, baseStrip, baseCache] = await Promise.all([
    import(join(repository, "src/streams/strip.ts")) as Promise<Strip>,
    import(join(repository, "src/streams/cache.ts")) as Promise<Cache>,
    import(join(repository, "src/verdicts/index.ts")) as Promise<Verdicts>,
    import(join(baseline.root, "src/streams/strip.ts")) as Promise<Strip>,
    import(join(baseline.root, "src/streams/cache.ts")) as Promise<Cache>,
  ]);
  const perKind: Record<string, Record<string, number>> = {};
  for (const { file, text } of objects) {
    const sample = JSON.parse(text) as { apiVersion: string; kind: string };
    const kindKey = verdicts.groupKind(sample.apiVersion, sample.kind);
    const target = { apiVersion: sample.apiVersion, kind: sample.kind, kindKey, metadataOnly: false };
    const keptFields = verdicts.cachedFieldsOf(kindKey);
    if (!keptFields) throw new Error(`${file}: the library has no entry for ${kindKey}`);
    const texts = Array.from({ length: copies }, (_, i) => copyOf(text, i));
    const measure = (s: Strip, c: Cache, extra: Record<string, unknown>) => {
      let held = new c.ObjectCache();
      return heapBytesPerObject(
        texts,
        rounds,
        (t) => held.upsert(s.stripObject(JSON.parse(t), { ...target, ...extra } as never)!),
        () => (held = new c.ObjectCache()),
      );
    };
    perKind[file] = {
      jsonBytes: Buffer.byteLength(text),
      baselineGenericStrip: measure(baseStrip, baseCache, {}),
      baselineWholeStatus: measure(baseStrip, baseCache, { wholeStatus: true }),
      libraryFields: measure(strip, cache, { keptFields }),
    };
  }
  const mean = (key: string) => Math.round(Object.values(perKind).reduce((sum, k) => sum + k[key]!, 0) / objects.length);
  const file = writeResults("custom-resources-memory", {
    copies,
    rounds,
    baselineCommit: baseline.commit,
    heapBytesPerCachedObject: perKind,
    mean: { baselineGenericStrip: mean("baselineGenericStrip"), baselineWholeStatus: mean("baselineWholeStatus"), libraryFields: mean("libraryFields") },
  });
  console.log(JSON.stringify(perKind, null, 1), `-> ${file}`);
} finally {
  rmSync(baseline.root, { recursive: true, force: true });
}

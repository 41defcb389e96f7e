// How stagewatch judges a corpus it was not written from: the test objects of Argo CD's resource
// health library (resource_customizations/**/health_test.yaml, each naming an object under
// testdata/ and the health Argo CD expects), read as the service reads them (stripped as the
// informer cache keeps them, then evaluateResource with the request defaults), by the code as it
// is and by the code of a baseline commit (main before issue 19), extracted from git.
//
//   node --experimental-transform-types --disable-warning=ExperimentalWarning \
//     --import ./bench/support/resolve-ts.ts bench/argo-health-corpus.ts ARGO_CD_CHECKOUT [BASELINE_REF]
//
// BASELINE_REF defaults to the merge base of HEAD and main.
//
// Argo's data stays where it is: only counts and the paths of the objects judged otherwise are
// written (bench/results/argo-health-corpus.json). A false success is an object settled where Argo
// says Degraded, Progressing or Suspended (the goal is none); a never-settle one Argo calls Healthy
// left pending. Test objects without a uid or name get one (the cache keys on them).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { writeResults } from "./support/results.ts";

type Strip = typeof import("../src/streams/strip.ts");
type Verdicts = typeof import("../src/verdicts/index.ts");
interface Implementation {
  strip: Strip;
  verdicts: Verdicts;
}
type Json = Record<string, unknown>;

const argoStates = ["Healthy", "Progressing", "Suspended", "Degraded"] as const;
type ArgoState = (typeof argoStates)[number];

interface CorpusObject {
  /** testdata path under resource_customizations. */
  path: string;
  expected: ArgoState;
  object: Json;
}

function corpusOf(checkout: string): { objects: CorpusObject[]; skipped: Record<string, number> } {
  const root = join(checkout, "resource_customizations");
  if (!existsSync(root)) throw new Error(`${checkout} has no resource_customizations/: give the directory of an Argo CD checkout`);
  const tests = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith("health_test.yaml") && !path.split("/").includes("actions"))
    .sort();
  const objects: CorpusObject[] = [];
  const skipped: Record<string, number> = {};
  for (const testFile of tests) {
    const { tests: cases } = parseAllDocuments(readFileSync(join(root, testFile), "utf8"))[0]!.toJS() as {
      tests: { healthStatus: { status: string }; inputPath?: string; inputpath?: string }[];
    };
    // One of Argo's files spells the key `inputpath`; its loader takes either.
    for (const { healthStatus, inputPath, inputpath } of cases) {
      const path = join(dirname(testFile), inputPath ?? inputpath ?? "");
      if (!(argoStates as readonly string[]).includes(healthStatus.status)) {
        skipped[healthStatus.status] = (skipped[healthStatus.status] ?? 0) + 1;
        continue;
      }
      const object = parseAllDocuments(readFileSync(join(root, path), "utf8"))[0]!.toJS() as Json;
      objects.push({ path, expected: healthStatus.status as ArgoState, object });
    }
  }
  return { objects, skipped };
}

function withIdentity(object: Json, index: number): Json {
  const metadata = { ...(object.metadata as Json | undefined) };
  metadata.name ??= `object-${index}`;
  metadata.uid ??= `00000000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
  return { ...object, metadata };
}

type Reading = "settled" | "pending" | "failed";

function judge({ strip, verdicts }: Implementation, raw: Json): { state: Reading; reason?: string; message?: string } {
  const apiVersion = String(raw.apiVersion);
  const kind = String(raw.kind);
  const kindKey = verdicts.groupKind(apiVersion, kind);
  // As the service configures the cache: the fields a CEL check reads, for kinds judged by one
  // (the baseline has no library, and none configured: the generic strip).
  const keptFields = "cachedFieldsOf" in verdicts ? verdicts.cachedFieldsOf(kindKey) : undefined;
  const object = strip.stripObject(structuredClone(raw), { apiVersion, kind, kindKey, metadataOnly: false, ...(keptFields && { keptFields }) });
  if (!object) throw new Error(`${kindKey}: not an object`);
  const reading = verdicts.evaluateResource({ object, failOn: new Set(verdicts.defaultFailOn) });
  return { state: reading.state, ...(reading.reason && { reason: reading.reason }), message: reading.message };
}

function measure(implementation: Implementation, objects: readonly CorpusObject[]) {
  const table: Record<ArgoState, Record<Reading, number>> = Object.fromEntries(argoStates.map((s) => [s, { settled: 0, pending: 0, failed: 0 }])) as never;
  const falseSuccesses: { path: string; argo: ArgoState; message?: string | undefined }[] = [];
  const neverSettles: { path: string; reason?: string | undefined; message?: string | undefined }[] = [];
  const falseFailures: { path: string; reason?: string | undefined; message?: string | undefined }[] = [];
  const perKind: Record<string, { objects: number; right: number }> = {};
  objects.forEach(({ path, expected, object }, index) => {
    const reading = judge(implementation, withIdentity(object, index));
    table[expected][reading.state] += 1;
    const kind = dirname(dirname(path));
    const tally = (perKind[kind] ??= { objects: 0, right: 0 });
    tally.objects += 1;
    // Right: settled where Argo says Healthy, failed where it says Degraded, pending otherwise.
    const right = expected === "Healthy" ? reading.state === "settled" : expected === "Degraded" ? reading.state !== "settled" : reading.state === "pending";
    if (right) tally.right += 1;
    if (expected !== "Healthy" && reading.state === "settled") falseSuccesses.push({ path, argo: expected, message: reading.message });
    if (expected === "Healthy" && reading.state === "pending") neverSettles.push({ path, reason: reading.reason, message: reading.message });
    if (expected === "Healthy" && reading.state === "failed") falseFailures.push({ path, reason: reading.reason, message: reading.message });
  });
  const degradedFailed = table.Degraded.failed;
  return {
    table,
    falseSuccesses: falseSuccesses.length,
    neverSettles: neverSettles.length,
    falseFailures: falseFailures.length,
    degradedFailedAtOnce: degradedFailed,
    kindsAllRight: Object.values(perKind).filter((k) => k.right === k.objects).length,
    details: { falseSuccesses, neverSettles, falseFailures },
    perKind,
  };
}

function extract(repository: string, ref: string): string {
  const directory = mkdtempSync(join(tmpdir(), "stagewatch-corpus-baseline-"));
  const archive = execFileSync("git", ["-C", repository, "archive", ref, "src"], { maxBuffer: 64 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", directory], { input: archive });
  symlinkSync(join(repository, "node_modules"), join(directory, "node_modules"), "dir");
  return directory;
}

async function load(root: string): Promise<Implementation> {
  const [strip, verdicts] = await Promise.all([import(join(root, "src/streams/strip.ts")) as Promise<Strip>, import(join(root, "src/verdicts/index.ts")) as Promise<Verdicts>]);
  return { strip, verdicts };
}

const [checkout, baselineArgument] = process.argv.slice(2);
if (!checkout) {
  console.error("usage: argo-health-corpus.ts ARGO_CD_CHECKOUT [BASELINE_REF]");
  process.exit(2);
}
const repository = fileURLToPath(new URL("..", import.meta.url));
// By default, where this branch left main: the code before issue 19, without later work of others.
const baselineCommit = execFileSync("git", ["-C", repository, ...(baselineArgument ? ["rev-parse", baselineArgument] : ["merge-base", "HEAD", "main"])], { encoding: "utf8" }).trim();
const argoCommit = existsSync(join(checkout, ".git")) ? execFileSync("git", ["-C", checkout, "rev-parse", "HEAD"], { encoding: "utf8" }).trim() : "unknown";
const { objects, skipped } = corpusOf(checkout);
const baselineRoot = extract(repository, baselineCommit);
try {
  const current = measure(await load(repository), objects);
  const baseline = measure(await load(baselineRoot), objects);
  const { perKind: _baselinePerKind, details: _baselineDetails, ...baselineSummary } = baseline;
  const file = writeResults("argo-health-corpus", {
    corpus: `argoproj/argo-cd ${argoCommit} resource_customizations/**/health_test.yaml`,
    objects: objects.length,
    kinds: new Set(objects.map(({ path }) => dirname(dirname(path)))).size,
    skippedArgoStates: skipped,
    baselineCommit,
    current: { ...current, details: current.details },
    baseline: baselineSummary,
  });
  const line = (name: string, m: ReturnType<typeof measure>) =>
    `${name}: false successes ${m.falseSuccesses}, never settle ${m.neverSettles}, false failures ${m.falseFailures}, Degraded failed at once ${m.degradedFailedAtOnce}/${objects.filter((o) => o.expected === "Degraded").length}`;
  console.log(`${objects.length} objects (${relative(process.cwd(), checkout) || checkout})`);
  console.log(line("baseline", baseline));
  console.log(line("current ", current));
  console.log(`-> ${file}`);
} finally {
  rmSync(baselineRoot, { recursive: true, force: true });
}

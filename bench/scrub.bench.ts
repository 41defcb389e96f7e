// Microseconds the credential scrubber spends per KiB of text, from 1 KiB to 1 MiB, on inputs
// written to make backtracking patterns slow (test/fixtures/adversarialText.ts). A linear
// scrubber's time per KiB stays flat as the text grows; a quadratic one's grows with it.
//
// Two figures per input and size, each for today's code and the code before it (src/verdicts/
// scrub.ts and reading.ts of commit f4a8504, taken from git and run in this same process on the
// same inputs):
// - patterns: scrubCredentials over the whole text, the cost of the patterns alone;
// - clean: what a reading's message costs as the service shows it (reading.ts `clean`): today
//   cut to its bound first, then scrubbed; before, scrubbed whole, then folded.
// And the cost of what the service scrubs all day: `clean` of ordinary messages (the corpus's
// ordinary cluster text and two workload summaries), in microseconds per message; today's `clean`
// answers a repeated short message from its memo, so the patterns' own cost on the same messages
// (scrubCredentials, every call scrubbing) is given beside it.
// The old code at 1 MiB takes tens of minutes on the quadratic inputs, so an old figure is
// measured only while one run stays under `budgetMs`; past it, the figure is projected from the
// growth between the last two sizes measured (written as `{ projected }`, never mixed up with a
// measurement).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { adversarialInputs, adversarialText, type AdversarialInput } from "../test/fixtures/adversarialText.ts";
import { sourceAt } from "./support/baselineSource.ts";
import { writeResults } from "./support/results.ts";

type Scrub = { scrubCredentials(text: string): string };
type Clean = { clean(text: string): string };
interface Implementation {
  readonly scrub: Scrub;
  readonly reading: Clean;
}

/** The last commit before cut-then-scrub and the linear patterns. */
const baselineCommit = "f4a8504db23e6947cfa7edfdf847ad26be88b2d8";
const sizesKiB = [1, 4, 16, 64, 256, 1024] as const;
/** A measurement repeats until it has run this long (and at least `minimumRounds` times). */
const minimumMs = 200;
const minimumRounds = 3;
/** An old figure whose single run took longer than this is the last measured for its input. */
const budgetMs = 2_000;

/** Milliseconds one call takes: one call when it is slow (its JIT warm-up is noise then), else averaged. */
function msPerCall(run: (text: string) => string, text: string): number {
  const first = performance.now();
  let sink = run(text).length;
  const once = performance.now() - first;
  if (once >= minimumMs) return once;
  let rounds = 0;
  const begun = performance.now();
  let elapsed = 0;
  while (elapsed < minimumMs || rounds < minimumRounds) {
    sink += run(text).length;
    rounds += 1;
    elapsed = performance.now() - begun;
  }
  if (sink < 0) throw new Error("unreachable");
  return elapsed / rounds;
}

type Figure = number | { projected: number };
const round = (value: number) => Math.round(value * 100) / 100;

/** Microseconds per KiB at every size; once a run takes longer than the budget, projected. */
function perKiB(run: (text: string) => string, input: AdversarialInput, budgeted: boolean): Record<number, Figure> {
  const figures: Record<number, Figure> = {};
  const measured: { kib: number; ms: number }[] = [];
  for (const kib of sizesKiB) {
    const last = measured.at(-1);
    if (budgeted && last !== undefined && last.ms > budgetMs) {
      const previous = measured.at(-2) ?? last;
      const exponent =
        previous === last ? 2 : Math.min(2, Math.max(1, Math.log(last.ms / previous.ms) / Math.log(last.kib / previous.kib)));
      const ms = last.ms * (kib / last.kib) ** exponent;
      figures[kib] = { projected: round((ms * 1000) / kib) };
      continue;
    }
    const ms = msPerCall(run, adversarialText(input, kib * 1024));
    measured.push({ kib, ms });
    figures[kib] = round((ms * 1000) / kib);
  }
  return figures;
}

async function load(root: string): Promise<Implementation> {
  const [scrub, reading] = await Promise.all([
    import(sourceAt(root, "src/verdicts/text/scrub.ts", "src/verdicts/scrub.ts")) as Promise<Scrub>,
    import(sourceAt(root, "src/verdicts/rules/reading.ts", "src/verdicts/reading.ts")) as Promise<Clean>,
  ]);
  return { scrub, reading };
}

/** The old scrubber and reading.ts; neither imports anything at run time but each other. */
function extractBaseline(repository: string): string {
  const directory = mkdtempSync(join(tmpdir(), "stagewatch-scrub-baseline-"));
  mkdirSync(join(directory, "src/verdicts"), { recursive: true });
  // The baseline predates the rooms of issue 33: both files lay in src/verdicts itself.
  for (const file of ["src/verdicts/scrub.ts", "src/verdicts/reading.ts"]) {
    writeFileSync(join(directory, file), execFileSync("git", ["-C", repository, "show", `${baselineCommit}:${file}`]));
  }
  return directory;
}

const ordinaryMessages: readonly string[] = [
  ...(JSON.parse(readFileSync(new URL("../test/fixtures/secret-shapes.json", import.meta.url), "utf8")) as { ordinary: string[] }).ordinary,
  "1/3 replicas ready, 3 updated",
  "0/3 replicas ready, 0 updated; pod api-7f9c-x2 container api: ImagePullBackOff",
];
const ordinaryRounds = 200_000;

function microsPerOrdinaryMessage(shape: (text: string) => string): number {
  let sink = 0;
  for (let i = 0; i < ordinaryRounds / 10; i += 1) sink += shape(ordinaryMessages[i % ordinaryMessages.length]!).length;
  const begun = performance.now();
  for (let i = 0; i < ordinaryRounds; i += 1) sink += shape(ordinaryMessages[i % ordinaryMessages.length]!).length;
  const elapsed = performance.now() - begun;
  if (sink < 0) throw new Error("unreachable");
  return round((elapsed * 1000) / ordinaryRounds);
}

type Table = Record<string, { current: Record<number, Figure>; baseline: Record<number, Figure> }>;
const valueOf = (figure: Figure) => (typeof figure === "number" ? figure : figure.projected);
/** The slowest input's figure at a size: what an adversary would pick. */
const worstOf = (table: Table, which: "current" | "baseline", kib: number) =>
  Math.max(...Object.values(table).map((row) => valueOf(row[which][kib]!)));

const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRoot = extractBaseline(repository);
try {
  const current = await load(repository);
  const baseline = await load(baselineRoot);
  const patterns: Table = {};
  const clean: Table = {};
  for (const [name, input] of Object.entries(adversarialInputs)) {
    patterns[name] = {
      current: perKiB((text) => current.scrub.scrubCredentials(text), input, false),
      baseline: perKiB((text) => baseline.scrub.scrubCredentials(text), input, true),
    };
    clean[name] = {
      current: perKiB((text) => current.reading.clean(text), input, false),
      baseline: perKiB((text) => baseline.reading.clean(text), input, true),
    };
    console.log(name, JSON.stringify(patterns[name]));
  }
  const summary = Object.fromEntries(
    sizesKiB.map((kib) => [
      kib,
      {
        patterns: { current: worstOf(patterns, "current", kib), baseline: worstOf(patterns, "baseline", kib) },
        clean: { current: worstOf(clean, "current", kib), baseline: worstOf(clean, "baseline", kib) },
      },
    ]),
  );
  const file = writeResults("scrub", {
    unit: "microseconds per KiB of input (the text's size, whatever part of it is read)",
    sizesKiB,
    budgetMs,
    inputs: Object.fromEntries(Object.entries(adversarialInputs).map(([name, { head, unit }]) => [name, `${head ? JSON.stringify(head) + " then " : ""}${JSON.stringify(unit)} repeated`])),
    baseline: {
      commit: baselineCommit,
      design: "URL userinfo, JWT and the other patterns anchored on \\b, retried from every character of a run; clean scrubs the whole text, then folds it",
    },
    worstPerKiB: summary,
    ordinaryMessages: {
      unit: "microseconds per message (clean)",
      messages: ordinaryMessages.length,
      current: microsPerOrdinaryMessage((text) => current.reading.clean(text)),
      baseline: microsPerOrdinaryMessage((text) => baseline.reading.clean(text)),
      patterns: {
        current: microsPerOrdinaryMessage((text) => current.scrub.scrubCredentials(text)),
        baseline: microsPerOrdinaryMessage((text) => baseline.scrub.scrubCredentials(text)),
      },
    },
    patterns,
    clean,
  });
  console.log(JSON.stringify(summary, null, 2));
  console.log(`wrote ${file}`);
} finally {
  rmSync(baselineRoot, { recursive: true, force: true });
}

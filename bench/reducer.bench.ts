// Microseconds the observation reducer spends on one reading of one declared resource, for
// requests of 10, 100 and 1,000 resources (the most a request may declare), every resource seen
// once and pending. Two readings: one whose message moved ("1/3 ready" to "2/3 ready", written to
// the state but announcing nothing) and one identical to the last (the fast path). Each is timed
// alone and followed by nextWakeAt, as the engine calls it after every step.
//
// Baseline: the reducer as it was before it kept aggregates (commit d9ac0f3, which copied the
// resources Map and scanned every resource on each event), extracted from git and run in this
// same process on the same inputs. Its figures measured on 2026-11-29 on this machine against the
// compiled dist/ are kept too, as `baselineRecorded`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourceAt } from "./support/baselineSource.ts";
import { writeResults } from "./support/results.ts";

type Reducer = typeof import("../src/verdicts/reducer/observation.ts");
type Starter = typeof import("../src/verdicts/reducer/observationState.ts");
type Readings = typeof import("../src/verdicts/rules/reading.ts");
interface Implementation {
  readonly reducer: Reducer;
  readonly start: Starter;
  readonly readings: Readings;
}

const baselineCommit = "d9ac0f3355650e115a91bcd8285339f7840262b9";
const sizes = [10, 100, 1_000] as const;
/** Each figure runs for at least this long, so the slow baseline at 1,000 still gets many rounds. */
const minimumMs = 400;
const minimumRounds = 2_000;

async function load(root: string): Promise<Implementation> {
  const [reducer, start, readings] = await Promise.all([
    import(sourceAt(root, "src/verdicts/reducer/observation.ts", "src/verdicts/observation.ts")) as Promise<Reducer>,
    // The baseline commit predates the camelCase file names.
    import(sourceAt(root, "src/verdicts/reducer/observationState.ts", "src/verdicts/observationState.ts", "src/verdicts/observation-state.ts")) as Promise<Starter>,
    import(sourceAt(root, "src/verdicts/rules/reading.ts", "src/verdicts/reading.ts")) as Promise<Readings>,
  ]);
  return { reducer, start, readings };
}

/** The old src, extracted where it still resolves zod through the repository's node_modules. */
function extractBaseline(repository: string): string {
  const directory = mkdtempSync(join(tmpdir(), "stagewatch-reducer-baseline-"));
  const archive = execFileSync("git", ["-C", repository, "archive", baselineCommit, "src"], { maxBuffer: 64 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", directory], { input: archive });
  symlinkSync(join(repository, "node_modules"), join(directory, "node_modules"), "dir");
  return directory;
}

type Kind = "changedMessage" | "identical";

function microsPerReading({ reducer, start, readings }: Implementation, size: number, kind: Kind, withWake: boolean): number {
  const started = start.startObservation({
    observationId: "obs-bench",
    request: {
      key: "bench/payments",
      deployment: "payments",
      require: "healthy",
      timeoutSeconds: 300,
      defaultNamespace: "payments",
      absentGraceSeconds: 10,
    stallSeconds: 120,
      failOn: ["ImagePullBackOff", "InvalidImageName"],
      resources: Array.from({ length: size }, (_, i) => ({ apiVersion: "apps/v1", kind: "Deployment", name: `api-${i}` })),
    },
    startedAtMs: 0,
    deadlineMs: 300_000,
  });
  if (!started.ok) throw new Error(`bench request invalid: ${JSON.stringify(started.issues)}`);
  let state = started.value;
  const keys = [...state.resources.keys()];
  const observed = (i: number, ready: number) => ({
    uid: `uid-${i}`,
    generation: 1,
    reading: readings.pending(undefined, `${ready}/3 replicas ready, 3 updated`),
  });
  keys.forEach((key, i) => {
    state = reducer.recordReading(state, key, observed(i, 0), 1).state;
  });
  // Readings built ahead, as the rule builds one before the reducer sees it.
  const prepared = Array.from({ length: 3 }, (_, ready) => keys.map((_, i) => observed(i, kind === "identical" ? 0 : ready)));
  let rounds = 0;
  let sink = 0;
  const begun = performance.now();
  let elapsed = 0;
  while (elapsed < minimumMs || rounds < minimumRounds) {
    for (let batch = 0; batch < 500; batch += 1, rounds += 1) {
      const i = rounds % size;
      // Each round of all resources moves every message on: 0/3 -> 1/3 -> 2/3 -> 0/3.
      const ready = (Math.floor(rounds / size) + 1) % 3;
      state = reducer.recordReading(state, keys[i]!, prepared[ready]![i]!, 2).state;
      if (withWake) sink += reducer.nextWakeAt(state) ?? 0;
    }
    elapsed = performance.now() - begun;
  }
  if (state.outcome !== "in_progress" || Number.isNaN(sink)) throw new Error("the bench observation ended early");
  return Math.round((elapsed * 1000 * 100) / rounds) / 100;
}

function measure(implementation: Implementation) {
  return Object.fromEntries(
    sizes.map((size) => [
      size,
      {
        changedMessage: microsPerReading(implementation, size, "changedMessage", false),
        changedMessageAndNextWakeAt: microsPerReading(implementation, size, "changedMessage", true),
        identical: microsPerReading(implementation, size, "identical", false),
        identicalAndNextWakeAt: microsPerReading(implementation, size, "identical", true),
      },
    ]),
  );
}

const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRoot = extractBaseline(repository);
try {
  const current = measure(await load(repository));
  const baseline = measure(await load(baselineRoot));
  const speedup = Object.fromEntries(
    sizes.map((size) => [size, Math.round((baseline[size]!.changedMessageAndNextWakeAt / current[size]!.changedMessageAndNextWakeAt) * 10) / 10]),
  );
  const file = writeResults("reducer", {
    unit: "microseconds per reading",
    sizes,
    scenario:
      "every declared Deployment seen once and pending, then one reading at a time round-robin; changedMessage moves the message (state and reason stay), identical repeats the last reading",
    current,
    baseline: { commit: baselineCommit, design: "copies the resources Map and scans every resource (timers, stages, counts) per event", ...baseline },
    speedupWithNextWakeAt: speedup,
    baselineRecorded: {
      note: "the old reducer, changedMessage alone, measured 2026-11-29 on this machine with /tmp/reducer-bench.mjs against dist/",
      10: 4.7,
      100: 24.2,
      1000: 210.3,
    },
  });
  console.log(JSON.stringify({ current, baseline, speedup }, null, 2));
  console.log(`wrote ${file}`);
} finally {
  rmSync(baselineRoot, { recursive: true, force: true });
}

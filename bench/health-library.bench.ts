// The health library counted: the kinds its entries cover (wildcard entries count once, with the
// kinds their tests name), and per entry how many of its own test objects are read as the entry
// says (src/verdicts/library/library.test.ts asserts every one; this writes the counts down), with
// the readings each state got. Results in bench/results/health-library.json.
import { comparedReading, librarySources, libraryTestObject } from "../scripts/healthLibrary/files.ts";
import { defaultFailOn, evaluateResource } from "../src/verdicts/index.ts";
import { writeResults } from "./support/results.ts";

const sources = librarySources();
const perEntry: Record<string, { tests: number; right: number; readings: Record<string, number>; wrong: string[] }> = {};
for (const { path, file } of sources) {
  const entry = (perEntry[path.replace(/\.yaml$/, "")] = { tests: 0, right: 0, readings: {} as Record<string, number>, wrong: [] as string[] });
  for (const test of file.tests) {
    const reading = evaluateResource({ object: libraryTestObject(file, test), failOn: new Set(defaultFailOn) });
    entry.tests += 1;
    entry.readings[reading.state] = (entry.readings[reading.state] ?? 0) + 1;
    if (JSON.stringify(comparedReading(reading, test.expect)) === JSON.stringify(test.expect)) entry.right += 1;
    else entry.wrong.push(test.name);
  }
}
const entries = Object.values(perEntry);
const testKinds = new Set(sources.flatMap(({ file }) => file.tests.map((test) => `${test.object.apiVersion ?? file.apiVersion}/${test.object.kind ?? file.kind}`)));
const file = writeResults("health-library", {
  entries: sources.length,
  wildcardEntries: sources.filter(({ file }) => file.apiVersion.startsWith("*.") || file.kind === "*").length,
  kindsInTests: testKinds.size,
  tests: entries.reduce((sum, e) => sum + e.tests, 0),
  right: entries.reduce((sum, e) => sum + e.right, 0),
  entriesAllRight: entries.filter((e) => e.right === e.tests).length,
  perEntry,
});
console.log(`${sources.length} entries, ${entries.reduce((s, e) => s + e.right, 0)}/${entries.reduce((s, e) => s + e.tests, 0)} test objects read as written -> ${file}`);

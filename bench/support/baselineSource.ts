// The sources of an earlier commit, for benchmarks that run the code before a change beside the
// code as it is: `src` of `commit` extracted from git into a temporary directory, with this
// checkout's node_modules linked in, so both import the same dependencies.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function extractBaseline(repository: string, commit: string, name: string): string {
  const directory = mkdtempSync(join(tmpdir(), `stagewatch-${name}-baseline-`));
  const archive = execFileSync("git", ["-C", repository, "archive", commit, "src"], { maxBuffer: 64 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", directory], { input: archive });
  symlinkSync(join(repository, "node_modules"), join(directory, "node_modules"), "dir");
  return directory;
}

/**
 * The file of `root` at the first of `paths` it has: a baseline commit may predate a move (the
 * rooms of issue 33 moved `src/verdicts/scrub.ts` to `src/verdicts/text/scrub.ts`), so a benchmark
 * names the path of today first and the paths it had before after it.
 */
export function sourceAt(root: string, ...paths: readonly string[]): string {
  const found = paths.find((path) => existsSync(join(root, path)));
  if (found === undefined) throw new Error(`none of ${paths.join(", ")} in ${root}`);
  return join(root, found);
}

// docs/reference/health-library.md: the health library's entries, read from health/ as
// scripts/healthLibrary reads them for the index the code ships (src/verdicts/library/entries.ts).
import { groupKind } from "../../src/kube/kinds.ts";
import { librarySources } from "../healthLibrary/files.ts";
import { code, generatedNotice, table } from "./markdown.ts";

export function healthLibraryPage(): string {
  const sources = librarySources();
  const rows = sources.map(({ path, file }) => [
    `[${code(groupKind(file.apiVersion, file.kind))}](../../health/${path})`,
    code(file.apiVersion),
    String(file.tests.length),
    file.source,
  ]);
  return [
    generatedNotice("health/<group>/<Kind>.yaml"),
    "# Health library",
    "",
    `The ${sources.length} CEL health checks stagewatch ships for custom kinds, on by default (\`stagewatch health\` lists`,
    "them; `stagewatch health KIND` prints one as a `--health-checks` file to override it from). A group `*.x` matches every",
    "group ending in `.x`, a kind `*` every kind of its group; a kind's own entry wins over a wildcard. Each file holds",
    "the entry's expressions and the objects its tests read; `Source` is the project and version its facts come from.",
    "",
    table(["Kind", "Written from", "Tests", "Source"], rows),
    "",
  ].join("\n");
}

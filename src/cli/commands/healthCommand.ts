// `stagewatch health`: the health library shipped with this version, one row an entry (the kind,
// the API version it was written from, the project and version its facts come from), or one
// entry in the format `serve --health-checks` reads, to copy and change into an override. With
// `--health-checks FILE`, the entries that file overrides are marked, and the file is checked as
// serve would check it.
import { stringify } from "yaml";
import { groupOf } from "../../kube/kinds.js";
import { libraryEntries } from "../../verdicts/library/entries.js";
import type { LibraryEntry } from "../../verdicts/library/entry.js";
import { parseCommandArgsWithOperands } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { readHealthChecks } from "../inputs/healthChecksFile.js";
import { exitCodes, UsageError } from "../io/usage.js";

export const healthUsage = `Usage: stagewatch health [KIND] [flags]

Lists the health library: the CEL health checks stagewatch ships for custom kinds, on by default.
With KIND (group/Kind, e.g. argoproj.io/Rollout, or a Kind), prints that entry as a --health-checks
file to start an override from.

Flags:
  -o, --output FORMAT     table or json (default table)
  --health-checks FILE    mark the entries this file overrides (checked as 'serve' checks it)
  -h, --help
`;

const keyOf = (entry: LibraryEntry) => `${groupOf(entry.apiVersion)}/${entry.kind}`;

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n");
}

export async function healthCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseCommandArgsWithOperands(argv, {
    output: { type: "string", short: "o", default: "table" },
    "health-checks": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout.write(healthUsage);
    return exitCodes.reached;
  }
  if (values.output !== "table" && values.output !== "json") throw new UsageError("-o/--output: must be table or json");
  if (positionals.length > 1) throw new UsageError("at most one KIND");
  const overridden = new Set(values["health-checks"] === undefined ? [] : readHealthChecks(values["health-checks"]).keys());

  const [wanted] = positionals;
  if (wanted !== undefined) {
    const matching = libraryEntries.filter((entry) => keyOf(entry) === wanted || entry.kind === wanted);
    if (matching.length === 0) throw new UsageError(`${wanted}: no entry in the health library (stagewatch health lists them)`);
    if (matching.length > 1) throw new UsageError(`${wanted}: several kinds of that name (${matching.map(keyOf).join(", ")}): name it group/Kind`);
    // failsBeforeObserving is the library's alone: a configured check is read only once observedGeneration catches up.
    const { source, failsBeforeObserving: _lag, ...check } = matching[0]!;
    const document = values.output === "json" ? JSON.stringify({ healthChecks: [check] }, null, 2) : `# ${source}\n${stringify({ healthChecks: [check] }, { lineWidth: 0 })}`;
    io.stdout.write(`${document.trimEnd()}\n`);
    return exitCodes.reached;
  }

  if (values.output === "json") {
    const entries = libraryEntries.map((entry) => ({ kind: keyOf(entry), apiVersion: entry.apiVersion, source: entry.source, overridden: overridden.has(keyOf(entry)) }));
    io.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
    return exitCodes.reached;
  }
  const rows = [["KIND", "API VERSION", "SOURCE"], ...libraryEntries.map((entry) => [`${keyOf(entry)}${overridden.has(keyOf(entry)) ? " (overridden)" : ""}`, entry.apiVersion, entry.source])];
  io.stdout.write(`${table(rows)}\n${libraryEntries.length} entries; a group '*.x' matches every group ending in '.x', a kind '*' every kind of it\n`);
  return exitCodes.reached;
}

// `stagewatch reasons`: the reasons a rollout waits on (verdicts/contract/reasonTable.ts), which
// fail a request that names no failOn, the grace to give the others, and why: what heals each and
// what does not. Read locally: the table is this version's; a service's `serve --fail-on` is its
// operator's to say.
import { failOnText } from "../../verdicts/contract/failOn.js";
import { defaultFailOn, reasonTable, type ReasonRow } from "../../verdicts/contract/reasonTable.js";
import { parseCommandArgs } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { exitCodes, UsageError } from "../io/usage.js";

export const reasonsUsage = `Usage: stagewatch reasons [flags]

Lists the reasons a rollout waits on: which fail a request that names no failOn (at once), the
grace to give the others in --fail-on (CrashLoopBackOff:2m: terminal once it has held 2 minutes on
the same object), who writes each, and what heals it and what does not. A service started with
serve --fail-on has its own default.

Flags:
  -o, --output FORMAT     table or json (default table)
  -h, --help
`;

/** `at once`, `2m0s`, `never`: the grace column as a person reads it. */
export function graceColumn(row: ReasonRow): string {
  if (row.graceSeconds === undefined) return "never";
  return row.graceSeconds === 0 ? "at once" : failOnText({ reason: row.reason, graceSeconds: row.graceSeconds }).slice(row.reason.length + 1);
}

function tableText(): string {
  const rows = reasonTable.map((row) => [row.reason, row.inDefault ? "yes" : "no", graceColumn(row), row.writtenBy]);
  const all = [["REASON", "DEFAULT", "GRACE", "WRITTEN BY"], ...rows];
  const widths = all[0]!.map((_, column) => Math.max(...all.map((row) => row[column]!.length)));
  const lines = all.flatMap((row, index) => {
    const line = row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ");
    const reason = reasonTable[index - 1];
    return reason ? [line, `    heals: ${reason.heals}`, `    never heals: ${reason.neverHeals}`] : [line];
  });
  return `${lines.join("\n")}\n\nDefault failOn: ${defaultFailOn.join(",")}\n`;
}

export async function reasonsCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    output: { type: "string", short: "o", default: "table" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout.write(reasonsUsage);
    return exitCodes.reached;
  }
  if (values.output === "json") io.stdout.write(`${JSON.stringify(reasonTable, null, 2)}\n`);
  else if (values.output === "table") io.stdout.write(tableText());
  else throw new UsageError(`--output: '${values.output}' is not table or json`);
  return exitCodes.reached;
}

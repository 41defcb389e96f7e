// docs/reference/reasons.md: the reasons table (src/verdicts/contract/reasonTable.ts), which
// `stagewatch reasons` prints too: the default failOn and the grace to give every other reason.
import { graceColumn } from "../../src/cli/commands/reasonsCommand.ts";
import { defaultFailOn, reasonTable } from "../../src/verdicts/contract/reasonTable.ts";
import { code, generatedNotice, table } from "./markdown.ts";

export function reasonsPage(): string {
  const rows = reasonTable.map((row) => [code(row.reason), row.inDefault ? "yes" : "no", graceColumn(row), row.writtenBy, row.heals, row.neverHeals]);
  return [
    generatedNotice("src/verdicts/contract/reasonTable.ts"),
    "# Reasons",
    "",
    `What ${code("stagewatch reasons")} prints. A request that names no ${code("failOn")} is failed at once by the reasons`,
    `marked default (${defaultFailOn.map(code).join(", ")}), unless the service was started with ${code("serve --fail-on")}.`,
    `Naming a reason with a grace (${code("--fail-on CrashLoopBackOff:2m")}, ${code('{"reason": "CrashLoopBackOff", "graceSeconds": 120}')})`,
    "makes it terminal once it has held that long on the same object; the grace column is the one to give it.",
    "[Failing on a reason](../user/fail-on.md) says what \"held\" reads.",
    "",
    table(["Reason", "Default", "Grace", "Written by", "Heals when", "Never heals when"], rows),
    "",
  ].join("\n");
}

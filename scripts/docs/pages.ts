// docs/reference/ as the code generates it. test/unit/reference-docs.test.ts fails when a page
// there differs; `npm run docs:update` (update.ts) rewrites them.
import { fileURLToPath } from "node:url";
import { cliPages } from "./cliPages.ts";
import { environmentPage } from "./environment.ts";
import { healthLibraryPage } from "./healthLibrary.ts";
import { kindsPage } from "./kinds.ts";
import { generatedNotice } from "./markdown.ts";
import { metricsPage } from "./metrics.ts";
import { reasonsPage } from "./reasons.ts";
import { serveDefaultsPage } from "./serveDefaults.ts";

export const referenceRoot = fileURLToPath(new URL("../../docs/reference/", import.meta.url));

/** Path under docs/reference/ -> text. */
export async function referencePages(): Promise<Map<string, string>> {
  const pages = new Map<string, string>([
    ["README.md", index],
    ...(await cliPages()),
    ["environment.md", environmentPage()],
    ["serve-defaults.md", await serveDefaultsPage()],
    ["metrics.md", await metricsPage()],
    ["kinds.md", kindsPage()],
    ["reasons.md", reasonsPage()],
    ["health-library.md", healthLibraryPage()],
  ]);
  return pages;
}

const index = [
  generatedNotice("scripts/docs/pages.ts"),
  "# Reference",
  "",
  "Generated from the code, so it is what this version does.",
  "",
  "- [Command line](cli/README.md): every command's `--help`, and the exit codes",
  "- [Environment variables](environment.md): every variable the commands and the service read",
  "- [serve's defaults](serve-defaults.md): every default of the service, its flag and the chart value that sets it",
  "- [Metrics](metrics.md): every metric, with its type, labels and help",
  "- [Kinds](kinds.md): how each built-in kind is judged and read",
  "- [Reasons](reasons.md): the default failOn and the grace to give every other reason",
  "- [Health library](health-library.md): the health checks shipped for custom kinds",
  "",
].join("\n");

// docs/reference/cli/: an index (what `stagewatch --help` prints, each command's summary, the exit
// codes) and one page per command holding what `stagewatch <command> --help` prints, verbatim:
// the help text is the one place a flag is described.
import { exitCodes } from "../../src/cli/io/usage.ts";
import { commandNames, helpText } from "./commandLine.ts";
import { code, generatedNotice, table } from "./markdown.ts";

/** Path under docs/reference/ -> text. */
export async function cliPages(): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  const helps = new Map<string, string>();
  for (const name of commandNames) helps.set(name, await helpText(name));

  const summaries = [...helps].map(([name, help]) => `- [${code(`stagewatch ${name}`)}](${name}.md): ${summaryOf(help)}`);
  const exits = Object.entries(exitCodes).map(([name, exit]) => [code(String(exit)), code(name)]);
  pages.set(
    "cli/README.md",
    [
      generatedNotice("src/cli/io/usage.ts and each command's `--help`"),
      "# Command line reference",
      "",
      `What ${code("stagewatch --help")} prints:`,
      "",
      fenced(await helpText()),
      "",
      "## Commands",
      "",
      ...summaries,
      "",
      "## Exit codes",
      "",
      "Shared by every command (src/cli/io/usage.ts); each command's page says what each means for it.",
      "",
      table(["Code", "Name in the code"], exits),
      "",
    ].join("\n"),
  );

  for (const [name, help] of helps) {
    pages.set(
      `cli/${name}.md`,
      [
        generatedNotice(code(`stagewatch ${name} --help`)),
        `# stagewatch ${name}`,
        "",
        `What ${code(`stagewatch ${name} --help`)} prints:`,
        "",
        fenced(help),
        "",
        "[Every command](README.md)",
        "",
      ].join("\n"),
    );
  }
  return pages;
}

/** The paragraph after the usage lines: what the command does, on one line. */
function summaryOf(help: string): string {
  const description = help.split(/\n\s*\n/)[1];
  if (description === undefined) throw new Error(`a help text without a paragraph after its usage lines:\n${help}`);
  return description.replace(/\s*\n\s*/g, " ").trim();
}

function fenced(text: string): string {
  return `\`\`\`text\n${text.trimEnd()}\n\`\`\``;
}

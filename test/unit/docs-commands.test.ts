// Every `stagewatch <command> --flag` a reader may copy from README.md, CONTRIBUTING.md or docs/
// must still run: the command exists and its parser takes each flag. Commands are read from the
// shell code blocks (```sh, ```bash, ```console or unmarked), where `stagewatch` starts a command
// (after a prompt, a pipe, `&&`, `;`, `npx` or variable assignments); output and help texts
// (```text) are not commands. Flags are asked of the CLI itself (scripts/docs/commandLine.ts),
// not of a list kept here.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { commandNames, definedFlags, helpText, takesFlag } from "../../scripts/docs/commandLine.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const shellLanguages = new Set(["", "sh", "bash", "shell", "console", "zsh"]);

interface Invocation {
  /** `README.md:42`. */
  readonly where: string;
  readonly command: string;
  readonly flags: readonly string[];
}

function markdownFiles(): string[] {
  const docs = join(repoRoot, "docs");
  const inDocs = existsSync(docs) ? readdirSync(docs, { recursive: true, encoding: "utf8" }).filter((path) => path.endsWith(".md")).map((path) => join(docs, path)) : [];
  return [...["README.md", "CONTRIBUTING.md"].map((file) => join(repoRoot, file)).filter(existsSync), ...inDocs.sort()];
}

/** Words of a shell line, quotes removed; a comment ends it. Enough for commands in docs, not a shell. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|((?<=^|\s)#.*$)|([^\s"']+)/g)) {
    if (match[3] !== undefined) break;
    words.push(match[1] ?? match[2] ?? match[4]!);
  }
  return words;
}

function invocationsIn(file: string): Invocation[] {
  const invocations: Invocation[] = [];
  const lines = readFileSync(file, "utf8").split("\n");
  let fence: string | undefined;
  let language = "";
  for (let index = 0; index < lines.length; index++) {
    const opening = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(lines[index]!);
    if (fence === undefined) {
      if (opening) [fence, language] = [opening[1]!, opening[2]!];
      continue;
    }
    if (lines[index]!.trim().startsWith(fence)) {
      fence = undefined;
      continue;
    }
    if (!shellLanguages.has(language)) continue;
    const lineNumber = index + 1;
    let line = lines[index]!;
    while (line.endsWith("\\") && index + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++index]}`;
    const words = shellWords(line.replace(/^\s*[$>]\s+/, ""));
    // Shell operators split one line into commands.
    const commands: string[][] = [[]];
    for (const word of words) {
      if (["|", "||", "&&", ";", "&"].includes(word)) commands.push([]);
      else if (word.startsWith("$(")) commands.push(word === "$(" ? [] : [word.slice(2)]);
      else commands.at(-1)!.push(word);
    }
    for (const command of commands) {
      let start = 0;
      while (start < command.length && (/^[A-Z_][A-Z0-9_]*=/.test(command[start]!) || command[start] === "npx" || command[start] === "exec")) start++;
      if (command[start] !== "stagewatch") continue;
      const [name, ...rest] = command.slice(start + 1);
      if (name === undefined || !/^[a-z]/.test(name)) continue;
      const flags = rest.filter((word) => /^--?[a-zA-Z]/.test(word)).map((word) => word.replace(/=.*$/, ""));
      invocations.push({ where: `${relative(repoRoot, file)}:${lineNumber}`, command: name, flags });
    }
  }
  return invocations;
}

const invocations = markdownFiles().flatMap(invocationsIn);

describe("the commands in the docs are the CLI's", () => {
  test("the docs hold commands to check", () => {
    expect(invocations.length).toBeGreaterThan(0);
  });

  test("every command named exists", () => {
    const unknown = invocations.filter((invocation) => !commandNames.includes(invocation.command));
    expect(unknown.map((invocation) => `${invocation.where}: stagewatch ${invocation.command} is no command (stagewatch --help lists them)`)).toEqual([]);
  });

  test("every flag given is one its command takes", async () => {
    const refused: string[] = [];
    for (const { where, command, flags } of invocations.filter((invocation) => commandNames.includes(invocation.command))) {
      for (const flag of flags) if (!(await takesFlag(command, flag))) refused.push(`${where}: stagewatch ${command} has no ${flag} (stagewatch ${command} --help lists its flags)`);
    }
    expect(refused).toEqual([]);
    // Parses every documented invocation's flags through the CLI's own parser: about 3 s of CPU
    // alone, past vitest's 5 s default when the machine is loaded (seen twice beside e2e runs).
  }, 60_000);
});

describe("each command's help and parser agree", () => {
  test.each([...commandNames])("stagewatch %s takes every flag its help lists, and refuses one it does not", async (command) => {
    const listed = definedFlags(await helpText(command));
    const refused = [];
    for (const flag of listed) if (!(await takesFlag(command, flag))) refused.push(flag);
    expect(refused).toEqual([]);
    expect(await takesFlag(command, "--no-such-flag")).toBe(false);
  });
});

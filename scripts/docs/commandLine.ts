// The command line as the code defines it, asked of the code itself: the commands main.ts
// dispatches, the text `stagewatch <command> --help` prints, and whether a command's parser takes
// a flag. Each runs the real `main` in this process (src/cli/testing/runCli.ts), so the reference
// and the docs' flag check read exactly what a user's shell would get, and no list of flags is
// written twice.
import { commandNames } from "../../src/cli/main.ts";
import { runCli } from "../../src/cli/testing/runCli.ts";

export { commandNames };

/** What `stagewatch [command] --help` prints; throws when it is not a help text (exit 0, on stdout). */
export async function helpText(command?: string): Promise<string> {
  const argv = command === undefined ? ["--help"] : [command, "--help"];
  const result = await runCli(argv);
  if (result.status !== 0 || result.stdout === "") {
    throw new Error(`stagewatch ${argv.join(" ")} exited ${result.status} printing ${JSON.stringify(result.stdout)} (stderr ${JSON.stringify(result.stderr)})`);
  }
  return result.stdout;
}

/**
 * The flags a help text defines: those starting one of its option lines (`  -o, --output FORMAT`,
 * `  --warning-events=BOOL`), not those its prose mentions (`serve --container-logs` in observe's).
 */
export function definedFlags(help: string): string[] {
  const flags: string[] = [];
  for (const line of help.split("\n")) {
    const match = /^ {2}(?:(-[a-zA-Z]), )?(--[a-z][a-z0-9-]*)/.exec(line);
    if (match) flags.push(...(match[1] === undefined ? [match[2]!] : [match[1], match[2]!]));
  }
  return flags;
}

/**
 * Whether `command`'s parser takes `flag` (`--name` or `-n`). Every command parses its flags
 * strictly before anything else and answers `--help` right after, so a flag it takes (with a
 * value, or as a switch) followed by `--help` prints the help and exits 0, and one it does not
 * take exits 2 naming it.
 */
export async function takesFlag(command: string, flag: string): Promise<boolean> {
  const attempts = flag.startsWith("--") ? [[`${flag}=x`], [flag]] : [[flag, "x"], [flag]];
  for (const attempt of attempts) {
    if ((await runCli([command, ...attempt, "--help"])).status === 0) return true;
  }
  return false;
}

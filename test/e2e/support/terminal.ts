/**
 * A real pseudo-terminal for tests of what a person sees: a command run in a detached tmux session
 * of a private tmux server (its own socket, no user configuration, UTF-8 forced with -u), and the screen as tmux renders
 * it (`capture-pane`), so cursor movement and erasing are applied exactly as a terminal applies them.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "./cluster.ts";

export interface TerminalSession {
  /**
   * The terminal's text now, one string per row, trailing blanks trimmed: the scrollback history
   * first, then the screen, so a redraw that scrolled instead of drawing in place shows as lines
   * repeated, and tmux's own "Pane is dead" line (written after a scroll) pushes nothing out of sight.
   */
  screen(): string[];
  /** Resolves with the command's exit status once it ended. */
  exited(options?: { timeoutMs?: number }): Promise<number>;
  /** Stops the tmux server (and with it the command, if still running). */
  close(): void;
}

function tmux(socket: string, args: string[]): string {
  const result = spawnSync("tmux", ["-u", "-L", socket, ...args], { encoding: "utf8" });
  if (result.error !== undefined) throw new Error("could not run tmux (apt-get install tmux)", { cause: result.error });
  if (result.status !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * Runs `script` (bash) in a `columns` x `rows` terminal. The pane stays after the command exits, so
 * its last screen can still be read; the exit status is written next to the script.
 */
export function startInTerminal(options: { dir: string; name: string; script: string; env: NodeJS.ProcessEnv; columns: number; rows: number }): TerminalSession {
  const socket = `stagewatch-${options.name}-${process.pid}`;
  const statusFile = join(options.dir, `${options.name}.status`);
  const scriptFile = join(options.dir, `${options.name}.sh`);
  const exports = Object.entries(options.env)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `export ${key}='${value.replaceAll("'", "'\\''")}'`);
  writeFileSync(scriptFile, [...exports, options.script, `echo $? > '${statusFile}'`, ""].join("\n"));
  const config = join(options.dir, `${options.name}.tmux.conf`);
  writeFileSync(config, "set -g remain-on-exit on\nset -g status off\n");
  tmux(socket, ["-f", config, "new-session", "-d", "-s", "main", "-x", String(options.columns), "-y", String(options.rows), `bash '${scriptFile}'`]);
  return {
    screen: () =>
      tmux(socket, ["capture-pane", "-p", "-S", "-", "-t", "main"])
        .split("\n")
        .map((line) => line.trimEnd())
        .filter((line) => !line.startsWith("Pane is dead")),
    exited: ({ timeoutMs = 150_000 } = {}) =>
      eventually("the command in the terminal exited", async () => (existsSync(statusFile) ? Number(readFileSync(statusFile, "utf8").trim()) : undefined), {
        timeoutMs,
      }),
    close: () => {
      spawnSync("tmux", ["-L", socket, "kill-server"]);
    },
  };
}

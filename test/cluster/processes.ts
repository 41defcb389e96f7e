/**
 * The processes of a local cluster, started detached and recorded in a pidfile in its state
 * directory, so that whoever comes next (`cluster:down`, the next start, a signal handler) can stop
 * exactly those processes by PID and nothing else.
 *
 * A PID is only signalled while `/proc/<pid>/cmdline` (or `ps` where there is no /proc) still
 * names the binary recorded for it: a PID the kernel has since handed to another program, or a
 * zombie, is left alone. Stopping is synchronous so it also works from `process.on("exit")` and
 * signal handlers, where no event loop runs.
 */
import { spawn, execFileSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ProcessRecord {
  name: string;
  pid: number;
  binary: string;
}

export interface StartedProcess extends ProcessRecord {
  logFile: string;
  /** Set once the process has exited, with its code or signal. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
}

const PIDFILE = "pids.json";

export function readPidfile(stateDir: string): ProcessRecord[] {
  const path = join(stateDir, PIDFILE);
  if (!existsSync(path)) return [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return Array.isArray(parsed) ? parsed.filter(isProcessRecord) : [];
  } catch {
    return [];
  }
}

function isProcessRecord(value: unknown): value is ProcessRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.name === "string" && typeof record.pid === "number" && typeof record.binary === "string";
}

function writePidfile(stateDir: string, records: ProcessRecord[]): void {
  writeFileSync(join(stateDir, PIDFILE), JSON.stringify(records, null, 2) + "\n");
}

/**
 * Starts `binary` in its own process group with stdout and stderr appended to
 * `<stateDir>/logs/<name>.log`, and adds it to the pidfile before returning. The child does not
 * keep the parent's event loop alive, so `cluster:up` can exit and leave the cluster running.
 */
export function startProcess(stateDir: string, name: string, binary: string, args: string[]): StartedProcess {
  const logFile = join(stateDir, "logs", `${name}.log`);
  const fd = openSync(logFile, "a");
  const child = spawn(binary, args, { cwd: stateDir, detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${name} (${binary})`);
  const started: StartedProcess = { name, pid: child.pid, binary, logFile, exit: undefined };
  child.on("error", () => {
    started.exit ??= { code: null, signal: null };
  });
  child.on("exit", (code, signal) => {
    started.exit = { code, signal };
  });
  child.unref();
  writePidfile(stateDir, [...readPidfile(stateDir), { name, pid: child.pid, binary }]);
  return started;
}

/** Whether `pid` is a live (not zombie) process still running `binary`. */
export function isRunning(record: ProcessRecord): boolean {
  try {
    const stat = readFileSync(`/proc/${record.pid}/stat`, "utf8");
    // The state letter follows the parenthesised command name, which may itself contain ") ".
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false;
    const argv0 = readFileSync(`/proc/${record.pid}/cmdline`, "utf8").split("\0")[0];
    return argv0 === record.binary;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && existsSync("/proc/self/stat")) return false;
  }
  try {
    const line = execFileSync("ps", ["-o", "stat=", "-o", "command=", "-p", String(record.pid)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return !line.startsWith("Z") && line.split(/\s+/)[1] === record.binary;
  } catch {
    return false;
  }
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

function signal(record: ProcessRecord, sig: NodeJS.Signals): void {
  try {
    process.kill(record.pid, sig);
  } catch {
    // Already gone between the check and the signal.
  }
}

/**
 * SIGTERM to every still-running process, up to `graceMs` for them to exit, then SIGKILL to the
 * rest. Returns the names of the processes that had to be killed.
 */
export function stopProcesses(records: readonly ProcessRecord[], graceMs = 10_000): string[] {
  let running = records.filter(isRunning);
  for (const record of running) signal(record, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (running.length > 0 && Date.now() < deadline) {
    sleepSync(100);
    running = running.filter(isRunning);
  }
  for (const record of running) signal(record, "SIGKILL");
  const killDeadline = Date.now() + 5_000;
  let unkilled = running;
  while (unkilled.length > 0 && Date.now() < killDeadline) {
    sleepSync(50);
    unkilled = unkilled.filter(isRunning);
  }
  return running.map((record) => record.name);
}

/**
 * Stops every process the pidfile of `stateDir` names, one at a time in reverse start order, then
 * removes the pidfile. The order matters: clients go before the API server and the API server
 * before etcd; a kube-apiserver whose etcd is already gone spends its whole grace period retrying.
 */
export function stopRecorded(stateDir: string, graceMs?: number): string[] {
  const records = readPidfile(stateDir);
  const killed = [...records].reverse().flatMap((record) => stopProcesses([record], graceMs));
  rmSync(join(stateDir, PIDFILE), { force: true });
  return killed;
}

/** The last `lines` lines of a component's log, for error messages. */
export function logTail(logFile: string, lines = 25): string {
  try {
    return readFileSync(logFile, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

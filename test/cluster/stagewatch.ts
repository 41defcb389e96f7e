/**
 * stagewatch itself as the chart and dashboard tests run it: compiled from `src/` the way the
 * Dockerfile's build stage does, and started as `stagewatch serve`; any command run to completion.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePorts, http, waitFor } from "./probes.ts";
import { logTail } from "./processes.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Scratch space inside the work tree (git-ignored), so compiled code finds the repository's node_modules. */
export function scratchDir(prefix: string): string {
  const parent = join(REPO_ROOT, ".stagewatch", "e2e");
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, `${prefix}-`));
}

export class CommandError extends Error {
  override name = "CommandError";
}

export interface CommandResult {
  /** The exit code; null when the command was killed (its timeout ran out). */
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  /** The command's whole environment. */
  env: NodeJS.ProcessEnv;
  /** The command is killed (SIGKILL) after this long. Default 10 minutes. */
  timeoutMs?: number;
  /**
   * Start it in a process group of its own and kill the whole group on timeout: a shell pipeline,
   * not only the shell. Default false (a Ctrl-C of the test run then reaches it too).
   */
  group?: boolean;
  /** Written to the command's standard input, then closed; without it stdin is /dev/null. */
  stdin?: string;
}

/** Runs a command to completion and collects both streams. */
export function runToCompletion(command: string, args: readonly string[], options: RunOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: options.group === true,
    });
    child.stdin?.end(options.stdin);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      if (options.group && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      else child.kill("SIGKILL");
    }, options.timeoutMs ?? 600_000);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new CommandError(`could not run ${command}`, { cause: error }));
    });
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** Runs a build step; anything but exit 0 throws with its output. */
async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<void> {
  const result = await runToCompletion(command, args, { cwd: options.cwd, env: options.env ?? process.env });
  if (result.status !== 0) {
    throw new CommandError(`${command} ${args.join(" ")} failed (exit ${result.status ?? "killed"}):\n${result.stdout}${result.stderr}`);
  }
}

export interface CompiledTree {
  root: string;
  cli: string;
}

/**
 * The Dockerfile's build stage: package files, tsconfig files, the CLI bundle script and `src/`
 * without unit tests (the .dockerignore keeps those out), built as `npm run build` does (tsc,
 * then the CLI bundle). The repository's node_modules stands in for the stage's `npm ci`, installed from the same lockfile.
 */
export async function compileStagewatch(dir: string): Promise<CompiledTree> {
  for (const file of ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json"]) {
    cpSync(join(REPO_ROOT, file), join(dir, file));
  }
  cpSync(join(REPO_ROOT, "src"), join(dir, "src"), {
    recursive: true,
    filter: (source) => !source.endsWith(".test.ts"),
  });
  cpSync(join(REPO_ROOT, "scripts", "bundle-cli.mjs"), join(dir, "scripts", "bundle-cli.mjs"));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  // `npm run build`: compile, then bundle the command line, as the image's build stage does.
  await run(process.execPath, [join(REPO_ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: dir });
  await run(process.execPath, [join(dir, "scripts", "bundle-cli.mjs")], { cwd: dir });
  return { root: dir, cli: join(dir, "dist", "cli.js") };
}

export interface RunningProcess {
  readonly logFile: string;
  /** Undefined when the process could not be spawned. */
  readonly pid: number | undefined;
  /** The exit, once it happened. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited(): boolean;
  /** Sends `signal` (SIGKILL for a crash) and resolves with how it exited. */
  kill(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it exited. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts a long-running process with its output in `logFile`; it is killed if this process exits first. */
export function startLogged(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string }): RunningProcess {
  const log = createWriteStream(options.logFile, { flags: "a" });
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  running.add(child);
  let done = false;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      done = true;
      running.delete(child);
      resolve({ code, signal });
    });
    child.once("error", (error) => {
      log.write(`could not start ${command}: ${error.message}\n`);
      done = true;
      running.delete(child);
      resolve({ code: null, signal: null });
    });
  });
  return {
    logFile: options.logFile,
    pid: child.pid,
    exit,
    exited: () => done,
    async kill(signal) {
      if (!done) child.kill(signal);
      return exit;
    },
    async stop(graceMs = 10_000) {
      if (!done) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const result = await exit;
      clearTimeout(timer);
      return result;
    },
  };
}

export interface ServeOptions {
  kubeconfigPath: string;
  natsUrl: string;
  /** Scratch directory for the log. */
  dir: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

export interface RunningService {
  process: RunningProcess;
  /** http://127.0.0.1:PORT serving /metrics, /healthz, /readyz. */
  url: string;
  port: number;
}

/**
 * `stagewatch serve` on a free loopback port, with only the environment it documents (no admin
 * credentials leak in from this process), waited for until /readyz answers 200.
 */
export async function startServe(cli: string, options: ServeOptions): Promise<RunningService> {
  const [port] = await freePorts(1);
  if (port === undefined) throw new Error("no free port");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: options.dir,
    NODE_ENV: "production",
    KUBECONFIG: options.kubeconfigPath,
    NATS_URL: options.natsUrl,
    ...options.env,
  };
  const args = [cli, "serve", "--metrics-host=127.0.0.1", `--metrics-port=${port}`, ...(options.args ?? [])];
  const started = startLogged(process.execPath, args, { cwd: options.dir, env, logFile: join(options.dir, "serve.log") });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor("stagewatch serve /readyz", async () => (await http(`${url}/readyz`)).status === 200, {
      timeoutMs: 60_000,
      abort: () => (started.exited() ? `exited early:\n${logTail(started.logFile)}` : undefined),
    });
  } catch (error) {
    await started.stop();
    throw error;
  }
  return { process: started, url, port };
}

/** Writes a multi-document YAML file of `objects` (JSON documents are YAML). */
export function writeManifest(path: string, objects: readonly object[]): string {
  writeFileSync(path, objects.map((object) => `---\n${JSON.stringify(object, null, 2)}\n`).join(""));
  return path;
}

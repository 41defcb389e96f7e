// What the side-by-side benchmarks (beside.ts, concurrent.ts) share: a waiter started as a process
// and timed, the scheduling gate that holds its pods back until it is watching, and how observe's
// --json verdict is read back.
import { spawn } from "node:child_process";
import { CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { kubeJson } from "../../test/cluster/kubeJson.ts";
import { latencies } from "./scale.ts";

/** The gate every benchmark pod template carries; the scheduler leaves a gated pod Pending. */
export const benchGate = { name: "stagewatch.io/bench-gate" } as const;

export interface ToolExit {
  code: number | null;
  spawnedAtMs: number;
  exitAtMs: number;
  /** When observe said "observing ... as <id>" on stderr: its request is in and it is watching. */
  observingAtMs: number | undefined;
  /** When the last stdout chunk arrived (observe's verdict; for the others, their last line). */
  lastStdoutAtMs: number | undefined;
  stdout: string;
  output: string;
}

export interface TimedTool {
  /** Resolves when observe says "observing", or when the process exits (the others never say it). */
  observing: Promise<void>;
  exit: Promise<ToolExit>;
}

/**
 * A tool started with only PATH, HOME and `env` in its environment (no inherited KUBECONFIG or
 * NATS_URL picks the wrong account or mode), on the benchmark's monotonic clock.
 */
export function spawnTimed(command: string, args: string[], env: NodeJS.ProcessEnv & { HOME: string }): TimedTool {
  const spawnedAtMs = performance.now();
  const child = spawn(command, args, { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let stdout = "";
  let observingAtMs: number | undefined;
  let lastStdoutAtMs: number | undefined;
  let saidObserving: () => void = () => {};
  const observing = new Promise<void>((resolve) => (saidObserving = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    lastStdoutAtMs = performance.now();
    stdout += chunk.toString();
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (observingAtMs === undefined && /^observing /m.test(output)) {
      observingAtMs = performance.now();
      saidObserving();
    }
  });
  const exit = new Promise<ToolExit>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      saidObserving();
      resolve({ code, spawnedAtMs, exitAtMs: performance.now(), observingAtMs, lastStdoutAtMs, stdout, output });
    });
  });
  return { observing, exit };
}

/** The names of the pods matching `labelSelector`, once there are `pods` of them (their controllers create them). */
async function podsCreated(admin: KubeConfig, namespace: string, labelSelector: string, pods: number, timeoutMs = 30_000): Promise<string[]> {
  const core = admin.makeApiClient(CoreV1Api);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const names = (await core.listNamespacedPod({ namespace, labelSelector })).items.map((pod) => pod.metadata!.name!);
    if (names.length >= pods) return names;
    if (performance.now() > deadline) throw new Error(`${namespace} ${labelSelector}: ${names.length} of ${pods} pods after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Lifts the scheduling gate of the pods matching `labelSelector`, as soon as their controllers have
 * created `pods` of them: a JSON merge patch with null removes the list, the one change to a pod's
 * scheduling gates the API server allows besides removing single entries.
 */
export async function ungate(admin: KubeConfig, namespace: string, labelSelector: string, pods: number): Promise<void> {
  for (const name of await podsCreated(admin, namespace, labelSelector, pods)) await liftGate(admin, namespace, name);
}

export async function liftGate(admin: KubeConfig, namespace: string, pod: string): Promise<void> {
  await kubeJson(admin, "PATCH", `/api/v1/namespaces/${namespace}/pods/${pod}`, { spec: { schedulingGates: null } });
}

function verdictOf(stdout: string): { decidedAt?: string; message?: string; outcome?: string } {
  try {
    return JSON.parse(stdout) as { decidedAt?: string; message?: string; outcome?: string };
  } catch {
    return {};
  }
}

/** decidedAt of observe --json's verdict, as epoch ms. */
export function decidedAtOf(stdout: string): number | undefined {
  const { decidedAt } = verdictOf(stdout);
  return decidedAt === undefined ? undefined : Date.parse(decidedAt);
}

/** Where observe's time goes, over runs each with its decisive event's time (if it was seen). */
export function observeTimings(runs: readonly (ToolExit & { decisiveAtMs: number | undefined })[]) {
  return {
    verdictPrintedAfterDecisiveEvent: latencies(runs.flatMap((r) => (r.decisiveAtMs === undefined || r.lastStdoutAtMs === undefined ? [] : [r.lastStdoutAtMs - r.decisiveAtMs]))),
    startUp: latencies(runs.flatMap((r) => (r.observingAtMs === undefined ? [] : [r.observingAtMs - r.spawnedAtMs]))),
    // The decisive event to the verdict's decidedAt (the engine's wall clock at the deciding step,
    // ms): how long the engine took to see and judge it, apart from the client's share after it.
    decidedAfterDecisiveEvent: latencies(runs.flatMap((r) => {
      const decidedAt = decidedAtOf(r.stdout);
      return decidedAt === undefined || r.decisiveAtMs === undefined ? [] : [decidedAt - (performance.timeOrigin + r.decisiveAtMs)];
    })),
    // The verdict's decidedAt to observe's stdout: in
    // service mode the record's compare-and-swap, the notice, the client's verification and the
    // print; in local mode the print alone.
    verdictPrintedAfterDecision: latencies(runs.flatMap((r) => {
      const decidedAt = decidedAtOf(r.stdout);
      return decidedAt === undefined || r.lastStdoutAtMs === undefined ? [] : [performance.timeOrigin + r.lastStdoutAtMs - decidedAt];
    })),
    exitAfterVerdictPrinted: latencies(runs.flatMap((r) => (r.lastStdoutAtMs === undefined ? [] : [r.exitAtMs - r.lastStdoutAtMs]))),
  };
}

export const verdictMessageOf = (stdout: string) => verdictOf(stdout).message ?? stdout.trim();

/** The outcome of observe --json's verdict (succeeded, failed, timed out ...), if it printed one. */
export const verdictOutcomeOf = (stdout: string) => verdictOf(stdout).outcome;

/** How many times each value occurs. */
export const count = (values: readonly string[]) => values.reduce<Record<string, number>>((counts, v) => ({ ...counts, [v]: (counts[v] ?? 0) + 1 }), {});

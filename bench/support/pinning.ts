// One core for the measuring process, another for the server it reads from, when the machine has
// two and taskset exists: the server's work never shows in the measured process's CPU or rate.
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (every thread) to core 0; true when it did, and the server should take core 1. */
export function pinToCoreZero(): boolean {
  const pinned = availableParallelism() >= 2 && hasTaskset();
  if (pinned) execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
  return pinned;
}

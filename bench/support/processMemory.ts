// Where a process's resident memory is: Node's memoryUsage, V8's heap statistics and spaces, and
// the kernel's smaps_rollup and status lines (VmHWM: the peak, which a memory limit must hold).
// Used inside the service by bench/cluster/profile-on-signal.ts and by bench/scale-curve's runs.
import { readFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

export function kernelMemory(): Record<string, string> {
  const lines: Record<string, string> = {};
  for (const file of ["/proc/self/smaps_rollup", "/proc/self/status"]) {
    try {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        const match = /^(\w+):\s+(.*)$/.exec(line);
        if (match && (file.endsWith("rollup") || match[1]!.startsWith("Vm") || match[1]!.startsWith("Rss"))) lines[match[1]!] = match[2]!;
      }
    } catch {
      // Not Linux: Node's own figures still say most of it.
    }
  }
  return lines;
}

export function processMemory(): Record<string, unknown> {
  return {
    memoryUsage: process.memoryUsage(),
    heap: getHeapStatistics(),
    spaces: Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size, physical: s.physical_space_size }])),
    kernel: kernelMemory(),
  };
}

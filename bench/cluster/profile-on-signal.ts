// Loaded into `stagewatch serve` by the cluster benchmark when it profiles (`--profile`), beside
// gc-on-signal.ts, with STAGEWATCH_BENCH_PROFILE_DIR naming where to write. The benchmark sends
// SIGUSR2 once before the measured phase and once after it: the first starts the CPU profiler,
// the second stops it and writes, so the profile covers exactly the phase the figures describe
// (not start-up, the warm-up observation or the Helm sample):
// - cpu.cpuprofile: the V8 CPU profile (sampling every 1 ms, finer costs more than it shows);
// - memory.json: where the resident memory is, after gc-on-signal's collections: Node's
//   memoryUsage, V8's heap statistics and spaces, and the kernel's smaps_rollup and status lines;
// - heap.heapsnapshot (only with STAGEWATCH_BENCH_HEAP_SNAPSHOT=1): what the JS heap holds.
// Both signals also record memory.json, so before and after sit side by side.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { processMemory } from "../support/processMemory.ts";

const directory = process.env["STAGEWATCH_BENCH_PROFILE_DIR"];
const heapSnapshot = process.env["STAGEWATCH_BENCH_HEAP_SNAPSHOT"] === "1";

if (directory !== undefined) {
  const session = new Session();
  session.connect();
  const memories: Record<string, unknown>[] = [];
  let signals = 0;
  process.on("SIGUSR2", () => {
    signals += 1;
    // After gc-on-signal's handler (registered first): the heap is what is held.
    setTimeout(() => void record(signals), 200);
  });
  const record = async (signal: number) => {
    memories.push({ signal, at: new Date().toISOString(), ...processMemory() });
    writeFileSync(join(directory, "memory.json"), JSON.stringify(memories, null, 2));
    if (signal === 1) {
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: 1000 });
      await session.post("Profiler.start");
    } else if (signal === 2) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(join(directory, "cpu.cpuprofile"), JSON.stringify(profile));
      if (heapSnapshot) writeHeapSnapshot(join(directory, "heap.heapsnapshot"));
    }
  };
}

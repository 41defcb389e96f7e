// `node bench/cluster/profileSummary.ts DIR NAME`: what profile-on-signal.ts wrote into DIR, cut
// to a summary kept in bench/results/NAME.json (the profiles themselves are tens of megabytes):
// - cpu: the profile's samples by where their time was spent (self time), grouped into the
//   service's parts (src/<folder>, each package under node_modules, Node's own, GC, idle), and
//   the functions with the most self time;
// - memory: memory.json's before and after, with the resident memory not in the JS heap split
//   into what Node and the kernel can name;
// - heap (when a snapshot was taken): the constructors holding the most self size;
// - steps: the event loop's longest uninterrupted stretches, and what ran in them;
// - slowestVerdicts (given the cluster benchmark's results file of the same run): for each of
//   its slowest verdicts, what the service did between the decisive event and the verdict's
//   arrival (profileWindows.ts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeResults } from "../support/results.ts";
import { busySteps, frameName, summarizeWindow, timeline, type CpuProfile } from "./profileWindows.ts";
import type { SlowVerdict } from "./scale.ts";

/** The part of the service a frame belongs to: a folder of src, a package, Node, or V8's own pseudo-frames. */
export function partOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return packageMatch[1]!;
  const srcMatch = /\/(?:dist|src)\/([^/]+)\//.exec(url);
  if (srcMatch) return `src/${srcMatch[1]}`;
  if (url.startsWith("node:")) return "node";
  if (/\/cli-bundle\//.test(url) || /\/dist\/cli\.js/.test(url)) return "cli bundle";
  return url;
}

function summarizeCpu(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)!;
    const part = partOf(callFrame.url, callFrame.functionName);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const name = frameName(byId.get(id)!);
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const idleUs = parts.get("(idle)") ?? 0;
  const busyUs = totalUs - idleUs;
  const share = (us: number) => Math.round((us / busyUs) * 1000) / 10;
  const ranked = (map: Map<string, number>, n: number) =>
    [...map]
      .filter(([name]) => name !== "(idle)")
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, seconds: Math.round(us / 1e4) / 100, percentOfBusy: share(us) }));
  return {
    seconds: Math.round(totalUs / 1e4) / 100,
    busySeconds: Math.round(busyUs / 1e4) / 100,
    idleSeconds: Math.round(idleUs / 1e4) / 100,
    byPart: ranked(parts, 30),
    topFunctions: ranked(functions, 40),
  };
}

function summarizeMemory(memories: { memoryUsage: NodeJS.MemoryUsage; heap: Record<string, number>; kernel: Record<string, string> }[]) {
  const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
  const kib = (text: string | undefined) => (text === undefined ? undefined : Number(text.split(" ")[0]) * 1024);
  return memories.map(({ memoryUsage, heap, kernel }) => ({
    rssMiB: mib(memoryUsage.rss),
    heapUsedMiB: mib(memoryUsage.heapUsed),
    heapTotalMiB: mib(memoryUsage.heapTotal),
    heapPhysicalMiB: mib(heap["total_physical_size"] ?? 0),
    externalMiB: mib(memoryUsage.external),
    arrayBuffersMiB: mib(memoryUsage.arrayBuffers),
    mallocedMiB: mib(heap["malloced_memory"] ?? 0),
    peakMallocedMiB: mib(heap["peak_malloced_memory"] ?? 0),
    // What the kernel counts resident and neither the JS heap nor Node's external memory explains:
    // code, the native allocator's arenas and what it has not returned, thread stacks.
    rssOutsideHeapAndExternalMiB: mib(memoryUsage.rss - (heap["total_physical_size"] ?? 0) - memoryUsage.external),
    rssAnonMiB: kib(kernel["Anonymous"]) === undefined ? undefined : mib(kib(kernel["Anonymous"])!),
    rssFileMiB: kib(kernel["RssFile"]) === undefined ? undefined : mib(kib(kernel["RssFile"])!),
  }));
}

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: (string[] | string)[] } };
  nodes: number[];
  strings: string[];
}

function summarizeHeap(snapshot: HeapSnapshot) {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0] as string[];
  const stride = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const groups = new Map<string, { count: number; bytes: number }>();
  let totalBytes = 0;
  for (let i = 0; i < snapshot.nodes.length; i += stride) {
    const type = types[snapshot.nodes[i + typeAt]!]!;
    const name = type === "object" || type === "native" ? snapshot.strings[snapshot.nodes[i + nameAt]!]! : `(${type})`;
    const size = snapshot.nodes[i + sizeAt]!;
    totalBytes += size;
    const group = groups.get(name) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += size;
    groups.set(name, group);
  }
  return {
    totalMiB: Math.round((totalBytes / 2 ** 20) * 10) / 10,
    top: [...groups]
      .sort((a, b) => b[1].bytes - a[1].bytes)
      .slice(0, 30)
      .map(([name, { count, bytes }]) => ({ name, count, kib: Math.round(bytes / 1024), percent: Math.round((bytes / totalBytes) * 1000) / 10 })),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [directory, name, clusterResults] = process.argv.slice(2);
  if (directory === undefined || name === undefined) {
    process.stderr.write("usage: node bench/cluster/profileSummary.ts PROFILE_DIR RESULT_NAME [CLUSTER_RESULTS_JSON]\n");
    process.exit(2);
  }
  const cpuFile = join(directory, "cpu.cpuprofile");
  const heapFile = join(directory, "heap.heapsnapshot");
  const profile = JSON.parse(readFileSync(cpuFile, "utf8")) as CpuProfile;
  const samples = timeline(profile);
  const slowest = clusterResults === undefined ? undefined : (JSON.parse(readFileSync(clusterResults, "utf8")) as { slowestVerdicts?: SlowVerdict[] }).slowestVerdicts;
  const document = {
    cpu: summarizeCpu(profile),
    steps: busySteps(profile, samples),
    ...(slowest !== undefined && {
      slowestVerdicts: slowest.map((verdict) => ({ ...verdict, inService: summarizeWindow(samples, verdict.decisiveAtUs, verdict.arrivedAtUs) })),
    }),
    memory: summarizeMemory(JSON.parse(readFileSync(join(directory, "memory.json"), "utf8"))),
    ...(existsSync(heapFile) && { heap: summarizeHeap(JSON.parse(readFileSync(heapFile, "utf8")) as HeapSnapshot) }),
  };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  process.stderr.write(`written to ${writeResults(name, document)}\n`);
}

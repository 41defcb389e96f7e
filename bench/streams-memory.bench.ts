// Heap per cached pod: as parsed from the API server's JSON, stripped to what the rules read,
// stripped and held in the informer's cache, and the same also filed in the engine's owner index
// (what the service really holds per pod). Side by side in one process, for the code as it is and
// for the code before shared values (baselineCommit, extracted from git), over 20,000 distinct
// pods of 1,000 ReplicaSets in 10 namespaces, built from a realistic running pod
// (src/streams/fixtures) with their own names, UIDs, IPs, container IDs and timestamps spread over
// six minutes, as pods created by a rollout of that size are. Then the same pods cached while
// their 1,000 Deployments roll out (heapBytesPerPodCachedThroughRollout: each Deployment's status
// stepping one ready pod at a time beside them), for the code as it is and for the code that still
// put workloads' statuses in the shared-values table (sharedBodiesBaselineCommit).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Pod } from "../src/kube/objects.ts";
import { extractBaseline, sourceAt } from "./support/baselineSource.ts";
import { heapBytesPerObject, writeResults } from "./support/results.ts";

const baselineCommit = "0ebf907a17fdabc151f6551a8cea8764fbc89901";
// The code before workloads' statuses were kept out of the shared-values table (strip.ts, sharedBodyKinds).
const sharedBodiesBaselineCommit = "e457f393746edb67a4b4da2cf329c80f0c4863fd";
const pods = 20_000;
const podsPerReplicaSet = 20;
const namespaces = 10;
const rounds = 3;

type Strip = typeof import("../src/streams/strip.ts");
type Cache = typeof import("../src/streams/cache.ts");
type Owned = typeof import("../src/observations/routing/ownedObjects.ts");
interface Implementation {
  strip: Strip;
  cache: Cache;
  owned: Owned;
}

async function load(root: string): Promise<Implementation> {
  const [strip, cache, owned] = await Promise.all([
    import(join(root, "src/streams/strip.ts")) as Promise<Strip>,
    import(join(root, "src/streams/cache.ts")) as Promise<Cache>,
    import(sourceAt(root, "src/observations/routing/ownedObjects.ts", "src/observations/ownedObjects.ts")) as Promise<Owned>,
  ]);
  return { strip, cache, owned };
}

const template = JSON.stringify(JSON.parse(readFileSync(new URL("../src/streams/fixtures/pod-running.json", import.meta.url), "utf8")));
const hex = (i: number, width: number) => i.toString(16).padStart(width, "0");
const createdAt = Date.parse("2026-11-28T09:14:03Z");
const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** The fixture pod's JSON text with this pod's own identity, owner, IP, container ID, namespace and times. */
function podJson(i: number): string {
  const replicaSet = Math.floor(i / podsPerReplicaSet);
  // A rollout of 20,000 pods here takes about six minutes: creation times spread over it, and each
  // pod's transitions follow its creation by a few seconds.
  const created = createdAt + Math.floor((i / pods) * 360) * 1000;
  const times: Record<string, string> = {
    "2026-11-28T09:14:03Z": at(created),
    "2026-11-28T09:14:05Z": at(created + 2000),
    "2026-11-28T09:14:06Z": at(created + 3000),
    "2026-11-28T09:14:09Z": at(created + 6000),
  };
  let text = template
    .replaceAll("api-7f9c6d5b8-x2kqv", `api-${hex(replicaSet, 9)}-${i.toString(36).padStart(5, "0")}`)
    .replaceAll("api-7f9c6d5b8", `api-${hex(replicaSet, 9)}`)
    .replaceAll("4b0e5c1d-9f3a-4d8e-b2c7-6a1f0e9d8c7b", `4b0e5c1d-9f3a-4d8e-b2c7-${hex(replicaSet, 12)}`)
    .replaceAll("d2a7c6e1-3b5f-4a90-8e1d-7c6b5a4f3e2d", `d2a7c6e1-3b5f-4a90-8e1d-${hex(i, 12)}`)
    .replaceAll('"184467"', `"${184_467 + i}"`)
    .replaceAll("10.244.1.17", `10.244.${(i >> 8) & 255}.${i & 255}`)
    .replaceAll("9b1f0c7e5d3a2b8c4e6f7a1d0c9b8e7f6a5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b", `${hex(i, 8)}${"9b1f0c7e".repeat(7)}`)
    .replaceAll('"namespace":"payments"', `"namespace":"team-${replicaSet % namespaces}"`);
  for (const [from, to] of Object.entries(times)) text = text.replaceAll(from, to);
  return text;
}

const target = { apiVersion: "v1", kind: "Pod", kindKey: "core/Pod", metadataOnly: false };
const texts = Array.from({ length: pods }, (_, i) => podJson(i));

/** Bytes of heap one kept pod costs (heapBytesPerObject over the pods' texts). */
function bytesPerPod(keep: (text: string) => void, release: () => void): number {
  return heapBytesPerObject(texts, rounds, keep, release);
}

function measure({ strip, cache, owned }: Implementation) {
  let held: unknown[] = [];
  const stripped = bytesPerPod(
    (text) => held.push(strip.stripObject(JSON.parse(text), target)),
    () => (held = []),
  );
  let objects = new cache.ObjectCache();
  const strippedInCache = bytesPerPod(
    (text) => objects.upsert(strip.stripObject(JSON.parse(text), target)!),
    () => (objects = new cache.ObjectCache()),
  );
  let index = new owned.OwnedObjectIndex();
  const cachedAndIndexed = bytesPerPod(
    (text) => {
      const pod = strip.stripObject(JSON.parse(text), target)!;
      objects.upsert(pod);
      index.applyPod("added", pod as Pod);
    },
    () => {
      objects = new cache.ObjectCache();
      index = new owned.OwnedObjectIndex();
    },
  );
  const strippedJsonBytes = Buffer.byteLength(JSON.stringify(strip.stripObject(JSON.parse(texts[0]!), target)));
  return { strippedJsonBytes, heapBytesPerPod: { stripped, strippedInCache, cachedAndIndexedByOwner: cachedAndIndexed } };
}

const deploymentTemplate = JSON.parse(readFileSync(new URL("../src/streams/fixtures/deployment.json", import.meta.url), "utf8")) as {
  metadata: Record<string, unknown>;
  status: Record<string, unknown>;
};

/** Deployment `d`'s status as its controller writes it once `ready` of its pods are ready: the Progressing condition names its ReplicaSet. */
function deploymentStepJson(d: number, ready: number): string {
  const conditions = [
    { type: "Available", status: ready > 0 ? "True" : "False", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability.", lastUpdateTime: at(createdAt + ready * 1000) },
    { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `ReplicaSet "api-${hex(d, 9)}" is progressing.`, lastUpdateTime: at(createdAt + ready * 1000) },
  ];
  const status = { observedGeneration: 1, replicas: podsPerReplicaSet, updatedReplicas: podsPerReplicaSet, readyReplicas: ready, availableReplicas: ready, unavailableReplicas: podsPerReplicaSet - ready, conditions };
  const metadata = { ...deploymentTemplate.metadata, name: `api-${d}`, namespace: `team-${d % namespaces}`, uid: `7c1d0e2f-3a4b-4c5d-8e6f-${hex(d, 12)}`, resourceVersion: String(400_000 + d * podsPerReplicaSet + ready) };
  return JSON.stringify({ ...deploymentTemplate, metadata, status });
}

/**
 * The heap held per cached pod after the pods of 1,000 Deployments are cached while those
 * Deployments roll out: each pod's arrival is followed by one more step of its Deployment's status
 * (one more pod ready), the Deployment replaced in a cache of its own. Each round strips with a
 * fresh instance of the strip module, so with a fresh shared-values table, as at a service's start.
 */
async function heapPerPodThroughRollout(root: string): Promise<number> {
  const strips = await Promise.all(Array.from({ length: rounds }, (_, round) => import(`${join(root, "src/streams/strip.ts")}?rollout-${round}`) as Promise<Strip>));
  const cache = (await import(join(root, "src/streams/cache.ts"))) as Cache;
  const deploymentTarget = { apiVersion: "apps/v1", kind: "Deployment", kindKey: "apps/Deployment", metadataOnly: false };
  const steps = texts.map((_, i) => deploymentStepJson(Math.floor(i / podsPerReplicaSet), (i % podsPerReplicaSet) + 1));
  let round = 0;
  let next = 0;
  let pods = new cache.ObjectCache();
  let deployments = new cache.ObjectCache();
  return heapBytesPerObject(
    texts,
    rounds,
    (text) => {
      const strip = strips[round]!;
      pods.upsert(strip.stripObject(JSON.parse(text), target)!);
      deployments.upsert(strip.stripObject(JSON.parse(steps[next++]!), deploymentTarget)!);
    },
    () => {
      if (pods.size !== texts.length || deployments.size !== texts.length / podsPerReplicaSet) throw new Error("the caches did not hold every object");
      round += 1;
      next = 0;
      pods = new cache.ObjectCache();
      deployments = new cache.ObjectCache();
    },
  );
}

const repository = fileURLToPath(new URL("..", import.meta.url));
const baselineRoot = extractBaseline(repository, baselineCommit, "memory");
const sharedBodiesBaselineRoot = extractBaseline(repository, sharedBodiesBaselineCommit, "memory-shared-bodies");
try {
  const [baseline, current] = [await load(baselineRoot), await load(repository)];
  let held: unknown[] = [];
  const parsed = bytesPerPod(
    (text) => held.push(JSON.parse(text)),
    () => (held = []),
  );
  // Interleaved, current first: the baseline then runs on a heap the current one already grew.
  const now = measure(current);
  const before = measure(baseline);
  // 1,000 Deployments' statuses stepping through their rollouts beside their pods: what the
  // shared-values table kept of them before they were kept out of it, and what it keeps now.
  const throughRollout = {
    current: await heapPerPodThroughRollout(repository),
    beforeSharedBodies: await heapPerPodThroughRollout(sharedBodiesBaselineRoot),
  };
  const results = {
    pods,
    podsPerReplicaSet,
    namespaces,
    rounds,
    baselineCommit,
    podJsonBytes: Buffer.byteLength(texts[0]!),
    heapBytesPerPodParsed: parsed,
    current: now,
    baseline: before,
    parsedToCachedRatio: Math.round((parsed / now.heapBytesPerPod.strippedInCache) * 10) / 10,
    sharedBodiesBaselineCommit,
    heapBytesPerPodCachedThroughRollout: throughRollout,
  };
  const file = writeResults("streams-memory", results);
  console.log(JSON.stringify({ parsed, current: now.heapBytesPerPod, baseline: before.heapBytesPerPod, throughRollout }), `-> ${file}`);
} finally {
  rmSync(baselineRoot, { recursive: true, force: true });
  rmSync(sharedBodiesBaselineRoot, { recursive: true, force: true });
}

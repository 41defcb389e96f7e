// The cache never changes a decision: for every object of the fixture corpus and every test object
// of the health library, and for variants of them whose status is null, empty, or nested-only
// (with a CEL health check configured for one custom kind; kinds judged by a check keep the fields
// its expressions read), the rules decide the same on the object as the informer cache keeps it
// (stripObject) as on the object the API server sent. Owned objects are
// stripped too, and every pod and ReplicaSet of the corpus is offered to every rule (the rules
// join by controller UID, so the superset exercises the joins on both sides).
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { groupKind } from "../../src/kube/kinds.js";
import type { KubeObject, Pod, ReplicaSet } from "../../src/kube/objects.js";
import { defaultMetadataOnlyKinds, stripObject } from "../../src/streams/index.js";
import { builtInKinds, cachedFieldsOf, compileHealthChecks, defaultFailOn, evaluateResource, existenceOnlyKinds, type OwnedObjects } from "../../src/verdicts/index.js";
import { librarySources, libraryTestObject } from "../../scripts/healthLibrary/files.ts";
import { captured, capturedNames } from "../fixtures/kube/captured.js";
import { pod, running, terminated, waiting } from "../fixtures/kube/pods.js";
import { migrationConditions, storageVersionMigration } from "../fixtures/kube/migrations.js";
import { daemonSet, deployment, deploymentConditions, job, jobConditions, replicaSet, statefulSet } from "../fixtures/kube/workloads.js";

// Kinds judged by a CEL health check keep what it reads, as the service configures the cache.
const healthChecks = compileHealthChecks([
  { apiVersion: "capture.stagewatch.io/v1", kind: "Gadget", current: "status.health.status == 'Healthy'", failed: "has(status.nodes) && size(status.nodes) == 0" },
]);

function strip(object: KubeObject): KubeObject {
  const kindKey = groupKind(object.apiVersion, object.kind);
  const keptFields = cachedFieldsOf(kindKey, healthChecks);
  const stripped = stripObject(structuredClone(object), {
    apiVersion: object.apiVersion,
    kind: object.kind,
    kindKey,
    metadataOnly: defaultMetadataOnlyKinds.includes(kindKey),
    ...(keptFields && { keptFields }),
  });
  if (!stripped) throw new Error(`${kindKey} ${object.metadata.name} did not survive stripping`);
  return stripped;
}

const streamFixtures = new URL("../../src/streams/fixtures/", import.meta.url);
function streamFixture(file: string): KubeObject[] {
  const json = JSON.parse(readFileSync(new URL(file, streamFixtures), "utf8")) as { kind: string; items?: KubeObject[] };
  // List fixtures (PartialObjectMetadataList) carry their items without apiVersion and kind.
  return json.items ? json.items.map((item) => ({ ...item, apiVersion: "v1", kind: "Secret" })) : [json as unknown as KubeObject];
}

const api = deployment({ name: "api" });
const apiRs = replicaSet(api, { name: "api-7f9c6d8b5", revision: "3", replicas: 3 });
const builtObjects: KubeObject[] = [
  api,
  apiRs,
  deployment({ name: "paused", paused: true }),
  deployment({ name: "fresh", status: null }),
  deployment({
    name: "stuck",
    status: { observedGeneration: 7, replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1, conditions: [deploymentConditions.unavailable(), deploymentConditions.deadlineExceeded("stuck-1")] },
  }),
  pod({ name: "api-7f9c6d8b5-a1", owner: apiRs }),
  pod({ name: "api-7f9c6d8b5-b2", owner: apiRs, phase: "Pending", containers: [waiting("api", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/api:9"')] }),
  pod({ name: "api-7f9c6d8b5-c3", owner: apiRs, containers: [waiting("api", "CrashLoopBackOff", undefined, { restartCount: 4, lastTerminated: { exitCode: 1, reason: "Error" } })] }),
  pod({ name: "lonely", unschedulable: "0/3 nodes are available: 3 Insufficient cpu." }),
  statefulSet({ name: "ledger", status: { observedGeneration: 4, replicas: 3, readyReplicas: 2, updatedReplicas: 3, currentRevision: "ledger-1", updateRevision: "ledger-1" } }),
  statefulSet({ name: "ledger-partitioned", updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } }, status: { observedGeneration: 4, replicas: 3, readyReplicas: 3, updatedReplicas: 1 } }),
  daemonSet({ name: "agent", status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 3 } }),
  daemonSet({ name: "agent-ondelete", updateStrategy: { type: "OnDelete" }, status: { observedGeneration: 2, desiredNumberScheduled: 3, updatedNumberScheduled: 0, numberAvailable: 2, numberReady: 2 } }),
  job({ name: "migrate", status: { succeeded: 1, conditions: jobConditions.complete() } }),
  job({ name: "migrate-counting", status: { uncountedTerminatedPods: { succeeded: ["6f1c"] }, conditions: jobConditions.successCriteriaMet() } }),
  job({ name: "migrate-suspended", suspend: true, status: { conditions: jobConditions.suspended() } }),
  job({ name: "migrate-failed", status: { failed: 1, conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") } }),
  storageVersionMigration(),
  storageVersionMigration([migrationConditions.running()]),
  storageVersionMigration([migrationConditions.succeeded()]),
  job({ name: "migrate-running", status: { active: 1, startTime: "2026-11-29T10:00:00Z" } }),
];
const migrateFailed = builtObjects.find((o) => o.metadata.name === "migrate-failed")!;
builtObjects.push(pod({ name: "migrate-failed-x", owner: migrateFailed, phase: "Failed", containers: [terminated("migrate", { exitCode: 2, reason: "Error", message: "relation already exists" })] }));
builtObjects.push(pod({ name: "agent-x", owner: builtObjects.find((o) => o.metadata.name === "agent")!, containers: [running("agent", { ready: false })] }));

// A ReplicationController's status has the ReplicaSet's fields; the local cluster's controller is
// the same code, so a captured ReplicaSet under the older kind stands in for one.
const replicationController = { ...captured("replicaset-ready"), apiVersion: "v1", kind: "ReplicationController" };
builtObjects.push(replicationController, { ...replicationController, metadata: { ...replicationController.metadata, name: "queue-new" }, status: { replicas: 0 } });

const libraryObjects = librarySources().flatMap(({ path, file }) => file.tests.map((test) => ({ name: `health/${path}/${test.name}`, object: libraryTestObject(file, test) })));

const corpus: { name: string; object: KubeObject }[] = [
  ...libraryObjects,
  ...capturedNames().map((name) => ({ name: `captured/${name}`, object: captured(name) })),
  ...readdirSync(streamFixtures).flatMap((file) => streamFixture(file).map((object) => ({ name: `streams/${file}/${object.metadata.name}`, object }))),
  ...builtObjects.map((object) => ({ name: `built/${object.kind}/${object.metadata.name}`, object })),
];

/** The same object with a status of another shape: none, null, empty, only nested fields, conditions plus nested fields. */
function variants(object: KubeObject): { name: string; object: KubeObject }[] {
  const nested = { health: { status: "Healthy" }, nodes: [{ name: "n-0" }] };
  return [
    { name: "as written", object },
    { name: "status: null", object: { ...object, status: null } as unknown as KubeObject },
    { name: "status: {}", object: { ...object, status: {} } },
    { name: "nested status only", object: { ...object, status: nested } },
    { name: "nested status beside its own", object: { ...object, status: { ...object.status, ...nested } } },
  ];
}

const allOwned = (objects: readonly KubeObject[]): OwnedObjects => ({
  replicaSets: objects.filter((o): o is ReplicaSet => o.kind === "ReplicaSet"),
  pods: objects.filter((o): o is Pod => o.kind === "Pod"),
});
const fullOwned = allOwned(corpus.map((entry) => entry.object));
const strippedOwned = allOwned(corpus.map((entry) => strip(entry.object)));

const cases = corpus.flatMap(({ name, object }) => variants(object).map((variant) => ({ name: `${name}, ${variant.name}`, object: variant.object })));

describe("stripping never changes a decision", () => {
  it("covers every ruled kind, existence-only kinds and custom resources", () => {
    const kinds = new Set(corpus.map(({ object }) => groupKind(object.apiVersion, object.kind)));
    const ruled = [...builtInKinds].filter(([, { judged }]) => judged === "ruled").map(([kind]) => kind);
    expect(ruled.filter((kind) => !kinds.has(kind))).toEqual([]);
    expect([...kinds].filter((kind) => existenceOnlyKinds.includes(kind)).length).toBeGreaterThanOrEqual(3);
    expect([...kinds].filter((kind) => !builtInKinds.has(kind)).length).toBeGreaterThanOrEqual(2);
  });

  it.each(cases)("$name", ({ object }) => {
    const failOn = new Set(defaultFailOn);
    const full = evaluateResource({ object, owned: fullOwned, failOn, healthChecks });
    const cached = evaluateResource({ object: strip(object), owned: strippedOwned, failOn, healthChecks });
    expect(cached).toEqual(full);
  });
});

// The cache never changes a decision: for every object of the fixture corpus and every test object
// of the health library, and for variants of them whose status is null, empty, or nested-only
// (with a CEL health check configured for one custom kind; kinds judged by a check keep the fields
// its expressions read), the rules decide the same on the object as the informer cache keeps it
// (stripObject) as on the object the API server sent. Owned objects are
// stripped too, and every pod and ReplicaSet of the corpus is offered to every rule (the rules
// join by controller UID, so the superset exercises the joins on both sides).
import { describe, expect, it } from "vitest";
import { groupKind } from "../../src/kube/kinds.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { metadataOnlyKinds } from "../../src/kube/kindFacts.js";
import { stripObject } from "../../src/streams/index.js";
import { builtInKinds, cachedFieldsOf, compileHealthChecks, defaultFailOn, evaluateResource, existenceOnlyKinds } from "../../src/verdicts/index.js";
import { librarySources, libraryTestObject } from "../../scripts/healthLibrary/files.ts";
import { ownedAmong, ruleCorpus } from "../fixtures/kube/corpus.js";

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
    metadataOnly: metadataOnlyKinds.has(kindKey),
    ...(keptFields && { keptFields }),
  });
  if (!stripped) throw new Error(`${kindKey} ${object.metadata.name} did not survive stripping`);
  return stripped;
}

const libraryObjects = librarySources().flatMap(({ path, file }) => file.tests.map((test) => ({ name: `health/${path}/${test.name}`, object: libraryTestObject(file, test) })));
const corpus = [...libraryObjects, ...ruleCorpus];

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

const fullOwned = ownedAmong(corpus.map((entry) => entry.object));
const strippedOwned = ownedAmong(corpus.map((entry) => strip(entry.object)));

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

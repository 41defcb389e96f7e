// Every entry of the health library on its own test objects (health/<group>/<Kind>.yaml), through
// evaluateResource as the service reads them, with the generic checks first. Besides the readings
// each file lists, two are derived from its first settled object for every entry: being deleted is
// pending (Terminating), and a generation its controller has not observed is pending, for kinds
// whose status carries observedGeneration.
import { describe, expect, it } from "vitest";
import { comparedReading, librarySources, libraryTestObject } from "../../../scripts/healthLibrary/files.ts";
import type { KubeObject } from "../../kube/objects.js";
import { builtInKinds } from "../rules/builtInKinds.js";
import { evaluateResource } from "../evaluation/registry.js";
import { defaultFailOn } from "../contract/schemas.js";
import { entryKey, libraryEntries, libraryEntryFor } from "./index.js";

const sources = librarySources();

function read(object: KubeObject) {
  return evaluateResource({ object, failOn: new Set(defaultFailOn) });
}

const cases = sources.flatMap(({ path, file }) => file.tests.map((test) => ({ name: `${path}: ${test.name}`, file, test })));

describe("the health library on its own test objects", () => {
  it.each(cases)("$name", ({ file, test }) => {
    expect(comparedReading(read(libraryTestObject(file, test)), test.expect)).toEqual(test.expect);
  });
});

describe("readings every entry shares", () => {
  const settledObjects = sources.flatMap(({ path, file }) => {
    const test = file.tests.find((t) => t.expect.state === "settled");
    return test ? [{ name: path, object: libraryTestObject(file, test) }] : [];
  });

  it("every entry has a settled test object", () => {
    expect(sources.filter(({ file }) => !file.tests.some((t) => t.expect.state === "settled")).map(({ path }) => path)).toEqual([]);
  });

  it.each(settledObjects)("$name: being deleted is pending", ({ object }) => {
    const deleting = { ...object, metadata: { ...object.metadata, deletionTimestamp: "2026-11-29T10:05:00Z" } };
    expect(read(deleting)).toMatchObject({ state: "pending", reason: "Terminating" });
  });

  it.each(settledObjects.filter(({ object }) => typeof object.status?.observedGeneration === "number"))(
    "$name: a generation not yet observed is pending",
    ({ object }) => {
      const ahead = { ...object, metadata: { ...object.metadata, generation: Number(object.status!.observedGeneration) + 1 } };
      expect(read(ahead)).toMatchObject({ state: "pending", reason: "GenerationNotObserved" });
    },
  );
});

describe("the library's index", () => {
  it("holds no built-in kind: those keep their own rule", () => {
    expect(libraryEntries.map(entryKey).filter((key) => builtInKinds.has(key))).toEqual([]);
  });

  it("finds an exact entry before a wildcard one", () => {
    for (const entry of libraryEntries.filter((e) => !e.apiVersion.startsWith("*.") && e.kind !== "*")) {
      expect(libraryEntryFor(entryKey(entry))).toBe(entry);
    }
  });
});

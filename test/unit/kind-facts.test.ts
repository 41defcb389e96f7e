// The table of kind facts (src/kube/kindFacts.ts) against the rules that depend on it: a rule that
// reads owned pods or ReplicaSets belongs to a kind that owns them (or the engine would never watch,
// join or route them to it), every kind that owns pods has a rule that reads them, and the facts
// name built-in kinds only, judged as the facts imply.
import { describe, expect, it } from "vitest";
import { clusterScopedKinds, kindFacts, metadataOnlyKinds, podOwningKinds, replicaSetOwningKinds } from "../../src/kube/kindFacts.js";
import { groupKind } from "../../src/kube/kinds.js";
import type { KubeObject } from "../../src/kube/objects.js";
import { builtInKinds, defaultFailOn, rules, type OwnedObjects } from "../../src/verdicts/index.js";
import { ownedAmong, ruleCorpus } from "../fixtures/kube/corpus.js";
import { deployment } from "../fixtures/kube/workloads.js";

/** The owned objects of the corpus, with a note of which of the two lists a rule read. */
function watchedOwned(): { owned: OwnedObjects; read: Set<keyof OwnedObjects> } {
  const all = ownedAmong(ruleCorpus.map(({ object }) => object));
  const read = new Set<keyof OwnedObjects>();
  const owned = {
    get replicaSets() {
      read.add("replicaSets");
      return all.replicaSets;
    },
    get pods() {
      read.add("pods");
      return all.pods;
    },
    // The pods' problems as the live engine keeps them: reading them is reading the pods.
    get podProblemsOf() {
      read.add("pods");
      return undefined;
    },
  };
  return { owned, read };
}

/** What the rule of `kind` reads of the owned objects, over every object of that kind in the corpus. */
function ownedReadBy(kind: string, objects: readonly KubeObject[]): Set<keyof OwnedObjects> {
  const rule = rules.get(kind)!;
  const readByAny = new Set<keyof OwnedObjects>();
  for (const object of objects) {
    const { owned, read } = watchedOwned();
    rule({ object, owned, failOn: new Set(defaultFailOn) });
    for (const list of read) readByAny.add(list);
  }
  return readByAny;
}

const objectsOf = (kind: string) => ruleCorpus.map(({ object }) => object).filter((object) => groupKind(object.apiVersion, object.kind) === kind);

describe("kind facts", () => {
  const ruledKinds = [...rules.keys()].filter((kind) => objectsOf(kind).length > 0);

  it("the corpus has objects of every kind that owns pods", () => {
    expect([...podOwningKinds].filter((kind) => objectsOf(kind).length === 0)).toEqual([]);
  });

  it.each(ruledKinds)("%s: its rule reads owned objects only if the kind owns them", (kind) => {
    const read = ownedReadBy(kind, objectsOf(kind));
    if (read.has("pods")) expect(podOwningKinds.has(kind)).toBe(true);
    if (read.has("replicaSets")) expect(replicaSetOwningKinds.has(kind)).toBe(true);
  });

  // A Deployment reads its pods through its current ReplicaSet, which none of the corpus' Deployments
  // has in the corpus: this one has (the corpus' api-7f9c6d8b5 is at revision 3).
  const withCurrentReplicaSet: Record<string, KubeObject[]> = { "apps/Deployment": [deployment({ name: "api", revision: "3" })] };

  it.each([...podOwningKinds])("%s owns pods: its rule reads them", (kind) => {
    const read = ownedReadBy(kind, [...objectsOf(kind), ...(withCurrentReplicaSet[kind] ?? [])]);
    expect(read.has("pods")).toBe(true);
    expect(read.has("replicaSets")).toBe(replicaSetOwningKinds.has(kind));
  });

  it("names built-in kinds only; metadata-only kinds are judged on existence", () => {
    expect([...kindFacts.keys()].filter((kind) => !builtInKinds.has(kind))).toEqual([]);
    expect([...metadataOnlyKinds].filter((kind) => builtInKinds.get(kind)?.judged !== "existence")).toEqual([]);
    expect([...podOwningKinds].filter((kind) => builtInKinds.get(kind)?.judged !== "ruled")).toEqual([]);
    expect(clusterScopedKinds.has("core/Namespace") && !clusterScopedKinds.has("core/Pod")).toBe(true);
  });
});

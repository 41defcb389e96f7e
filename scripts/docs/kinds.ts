// docs/reference/kinds.md: every built-in kind as the code judges and reads it, from the two tables
// that decide it: src/verdicts/rules/builtInKinds.ts (its class and why) and src/kube/kindFacts.ts
// (what it owns, metadata only, cluster-scoped).
import { kindFacts } from "../../src/kube/kindFacts.ts";
import { builtInKinds, judgementOf, kindClasses } from "../../src/verdicts/rules/builtInKinds.ts";
import { code, generatedNotice, table } from "./markdown.ts";

const classMeaning: Record<(typeof kindClasses)[number], string> = {
  ruled: "a rule of its own, from the kind's documented readiness signal",
  existence: "settled once it exists: it has no status, or what its status reports is no verdict on the apply",
  generic: "the common signals rule (observedGeneration, conditions), by design",
};

export function kindsPage(): string {
  const kinds = [...new Set([...builtInKinds.keys(), ...kindFacts.keys()])];
  const rows = kindClasses.flatMap((judged) =>
    kinds
      .filter((kind) => judgementOf(kind).judged === judged)
      .sort()
      .map((kind) => {
        const facts = kindFacts.get(kind) ?? {};
        return [
          code(kind),
          judged,
          judgementOf(kind).why,
          facts.owns === undefined ? "" : facts.owns === "pods" ? "its pods" : "its ReplicaSets and their pods",
          facts.metadataOnly ? "metadata only" : "whole object",
          facts.clusterScoped ? "cluster" : "namespace",
        ];
      }),
  );
  const classes = kindClasses.map((judged) => [judged, classMeaning[judged], String(rows.filter((row) => row[1] === judged).length)]);
  return [
    generatedNotice("src/verdicts/rules/builtInKinds.ts and src/kube/kindFacts.ts"),
    "# Kinds",
    "",
    "How each built-in kind is judged and read. A kind is named `group/Kind`, the core group written `core`; its API",
    "version does not matter. Custom kinds are judged by a `serve --health-checks` check, else the",
    "[health library](health-library.md), else the common signals rule; their scope comes from discovery.",
    "",
    table(["Judged", "How", "Kinds"], classes),
    "",
    table(["Kind", "Judged", "Why", "Joined with", "Read as", "Scope"], rows),
    "",
  ].join("\n");
}

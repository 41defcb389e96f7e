// The health library: stagewatch's own CEL health checks for the custom kinds charts carry, on by
// default. A kind is looked up by its key (`argoproj.io/Rollout`): its exact entry, else a wildcard
// entry of its group (`*.upbound.io/*`). A user's health check for the kind decides instead
// (registry.ts). Entries are compiled on first use, not at start-up: there are hundreds, a service
// meets a few, and the unit tests compile and run every one.
import { groupOf } from "../../kube/kinds.js";
import { compileHealthCheck } from "../cel/celHealthChecks.js";
import type { Rule } from "../rules/input.js";
import { libraryEntries } from "./entries.js";
import type { LibraryEntry } from "./entry.js";

export { libraryEntries };
export type { LibraryEntry };

/** `group/Kind` of an entry as written, wildcards kept: `*.crossplane.io/*`. */
export function entryKey(entry: Pick<LibraryEntry, "apiVersion" | "kind">): string {
  return `${groupOf(entry.apiVersion)}/${entry.kind}`;
}

const exact = new Map<string, LibraryEntry>();
const wildcards: LibraryEntry[] = [];
for (const entry of libraryEntries) {
  if (entry.apiVersion.startsWith("*.") || entry.kind === "*") wildcards.push(entry);
  else exact.set(entryKey(entry), entry);
}

function matches(entry: LibraryEntry, group: string, kind: string): boolean {
  const entryGroup = groupOf(entry.apiVersion);
  const groupMatches = entryGroup.startsWith("*.") ? group.endsWith(entryGroup.slice(1)) : group === entryGroup;
  return groupMatches && (entry.kind === "*" || entry.kind === kind);
}

/** The library's entry for a kind key, if it has one. */
export function libraryEntryFor(kindKey: string): LibraryEntry | undefined {
  const found = exact.get(kindKey);
  if (found) return found;
  const slash = kindKey.indexOf("/");
  const [group, kind] = [kindKey.slice(0, slash), kindKey.slice(slash + 1)];
  // The most specific wildcard: a named kind before `*`, a longer group suffix before a shorter.
  return wildcards
    .filter((entry) => matches(entry, group, kind))
    .sort((a, b) => Number(a.kind === "*") - Number(b.kind === "*") || b.apiVersion.length - a.apiVersion.length)[0];
}

// Bounded by the kinds the service is asked about (undefined remembered too: most kinds have none).
const compiled = new Map<string, Rule | undefined>();

/** The library's rule for a kind key, compiled on first use. */
export function libraryRuleFor(kindKey: string): Rule | undefined {
  if (compiled.has(kindKey)) return compiled.get(kindKey);
  const entry = libraryEntryFor(kindKey);
  const rule = entry && compileHealthCheck(entry, entryKey(entry));
  compiled.set(kindKey, rule);
  return rule;
}

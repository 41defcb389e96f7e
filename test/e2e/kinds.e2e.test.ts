/**
 * Every kind the API server serves is judged on purpose. Discovery (every group, every version)
 * lists the kinds an informer can watch (list and watch verbs); each built-in one must be in
 * builtInKinds (ruled, existence-only or generic by design), and the kinds of custom resources
 * (groups of CRDs, aggregated APIServices) fall to the generic rule. The OpenAPI v3 documents then
 * back the existence-only reasons: a kind classified as having no status has no status field.
 */
import { describe, expect, it } from "vitest";
import { clusterScopedKinds } from "../../src/kube/kindFacts.js";
import { kindKey } from "../../src/kube/kinds.js";
import { builtInKinds, type KindClass } from "../../src/verdicts/index.js";
import { kubeJson, loadKubeConfig, type Json } from "../cluster/kubeJson.ts";
import { kubeconfigPath } from "./support/cluster.ts";

const kc = loadKubeConfig(kubeconfigPath());
const get = (path: string) => kubeJson(kc, "GET", path);

interface ServedKind {
  key: string;
  group: string;
  version: string;
  kind: string;
  watchable: boolean;
  namespaced: boolean;
}

async function servedKinds(): Promise<ServedKind[]> {
  const groupVersions: { group: string; version: string; path: string }[] = [{ group: "", version: "v1", path: "/api/v1" }];
  const groups = (await get("/apis")).groups as { name: string; versions: { version: string }[] }[];
  for (const group of groups) {
    for (const { version } of group.versions) groupVersions.push({ group: group.name, version, path: `/apis/${group.name}/${version}` });
  }
  const kinds = new Map<string, ServedKind>();
  for (const { group, version, path } of groupVersions) {
    const resources = (await get(path)).resources as { name: string; kind: string; verbs: string[]; namespaced: boolean }[];
    for (const resource of resources) {
      if (resource.name.includes("/")) continue; // subresources: status, scale, log, eviction...
      const key = kindKey(group, resource.kind);
      const watchable = resource.verbs.includes("list") && resource.verbs.includes("watch");
      const known = kinds.get(key);
      if (!known || (watchable && !known.watchable)) kinds.set(key, { key, group, version, kind: resource.kind, watchable, namespaced: resource.namespaced });
    }
  }
  return [...kinds.values()].toSorted((a, b) => a.key.localeCompare(b.key));
}

/** Groups served by custom resources: CRDs and aggregated (service-backed) APIServices. */
async function customGroups(): Promise<Set<string>> {
  const crds = (await get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")).items as { spec: { group: string } }[];
  const apiServices = (await get("/apis/apiregistration.k8s.io/v1/apiservices")).items as { spec: { group?: string; service?: unknown } }[];
  return new Set([...crds.map((crd) => crd.spec.group), ...apiServices.filter((a) => a.spec.service).map((a) => a.spec.group ?? "")]);
}

/** Whether the kind's OpenAPI v3 schema has a `status` property. */
async function hasStatusField(served: ServedKind): Promise<boolean> {
  const document = await get(served.group === "" ? "/openapi/v3/api/v1" : `/openapi/v3/apis/${served.group}/${served.version}`);
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const schema = Object.values(schemas).find((candidate) =>
    ((candidate["x-kubernetes-group-version-kind"] ?? []) as { group: string; version: string; kind: string }[]).some(
      (gvk) => gvk.group === served.group && gvk.version === served.version && gvk.kind === served.kind,
    ),
  );
  if (!schema) throw new Error(`no OpenAPI schema for ${served.key} ${served.version}`);
  return Object.hasOwn((schema.properties ?? {}) as Json, "status");
}

describe("every served kind is classified", () => {
  it("discovery lists no built-in kind that builtInKinds leaves out, the kind facts' scope is discovery's, and existence-only 'no status' kinds have none", async () => {
    const served = await servedKinds();
    const custom = await customGroups();
    const watchable = served.filter((kind) => kind.watchable);
    const builtIn = watchable.filter((kind) => !custom.has(kind.group));
    const unclassified = builtIn.filter((kind) => !builtInKinds.has(kind.key)).map((kind) => kind.key);
    expect(unclassified).toEqual([]);

    // The kind facts' scope is what discovery says: a cluster-scoped kind never takes a request's defaultNamespace.
    const scopeWrong = builtIn.filter((kind) => clusterScopedKinds.has(kind.key) === kind.namespaced).map((kind) => `${kind.key} (namespaced: ${kind.namespaced})`);
    expect(scopeWrong).toEqual([]);

    const claimedWithoutStatus = builtIn.filter((kind) => builtInKinds.get(kind.key)!.why.startsWith("no status"));
    const withStatus: string[] = [];
    for (const kind of claimedWithoutStatus) if (await hasStatusField(kind)) withStatus.push(kind.key);
    expect(withStatus).toEqual([]);

    const counts: Record<KindClass | "custom", number> = { ruled: 0, existence: 0, generic: 0, custom: 0 };
    for (const kind of watchable) counts[custom.has(kind.group) ? "custom" : builtInKinds.get(kind.key)!.judged] += 1;
    const notWatchable = served.filter((kind) => !kind.watchable).map((kind) => kind.key);
    const classifiedNotServed = [...builtInKinds.keys()].filter((key) => !watchable.some((kind) => kind.key === key));
    console.info(
      `served kinds: ${served.length} (${watchable.length} watchable: ${counts.ruled} ruled, ${counts.existence} existence-only, ` +
        `${counts.generic} generic by design, ${counts.custom} custom; ${claimedWithoutStatus.length} existence-only kinds checked to have no status field); ` +
        `not watchable: ${notWatchable.join(", ")}; classified but not served here: ${classifiedNotServed.join(", ") || "none"}`,
    );
  });
});

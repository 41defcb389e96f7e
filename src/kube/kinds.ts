// Kind keys: the one name stagewatch gives a kind, wherever a kind is looked up or reported: rule
// registry, identity keys, one informer per kind, strip bodies, metadata-only kinds, metric `kind`
// labels. A key is `group/Kind`, with the core group ("" in the API) written `core`, so that
// `core/Pod` reads as clearly as `apps/Deployment` and a custom kind called `Pod` in another group
// never shares its key. The API version is left out on purpose: apps/v1 and a future apps/v2
// Deployment are one object, watched by one informer and decided by one rule.

/** `apps/v1` -> `apps`, `v1` -> `core`. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "core" : apiVersion.slice(0, slash);
}

/** The key of a kind named as requests and objects name it: `v1` + `Pod` -> `core/Pod`. */
export function groupKind(apiVersion: string, kind: string): string {
  return `${groupOf(apiVersion)}/${kind}`;
}

/** The key of a kind named as discovery names it, group and kind: `""` + `Pod` -> `core/Pod`. */
export function kindKey(group: string, kind: string): string {
  return `${group === "" ? "core" : group}/${kind}`;
}

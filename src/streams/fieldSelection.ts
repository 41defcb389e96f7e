// The fields of a custom resource the cache keeps for the health check that judges its kind: the
// tree of fields its expressions read (src/verdicts/cel/fieldsRead.ts makes it), applied to the
// object's spec and status as each arrives. Lists are transparent: a list keeps, of each element,
// the fields the tree names. A field named but absent stays absent; a field kept with none of its
// own fields (`{}` in the tree, what `has()` reads) keeps its presence and, for a list, its length.
type Json = Record<string, unknown>;

/** `true`: the value whole; an object: only these of its fields (of each element, for a list). */
export type KeptFields = true | { readonly [field: string]: KeptFields };

export function selectFields(value: unknown, kept: KeptFields): unknown {
  if (kept === true) return value;
  if (Array.isArray(value)) return value.map((element) => selectFields(element, kept));
  if (typeof value !== "object" || value === null) return value;
  const selected: Json = {};
  for (const [field, tree] of Object.entries(kept)) {
    const child = (value as Json)[field];
    if (child !== undefined) selected[field] = selectFields(child, tree);
  }
  return selected;
}

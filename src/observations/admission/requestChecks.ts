// What a request is checked against before it becomes an observation: the kinds the API server
// serves (discovery) and the namespaces this service watches. The schema checked its shape
// already; these checks need the cluster.
import type { ObserveResult } from "../../bus/index.js";
import { UnknownKindError, type ResourceMapping } from "../../streams/index.js";
import { groupKind, type FieldIssue, type ObservationRequest, type ObservationState } from "../../verdicts/index.js";
import type { KindSource } from "../ports.js";

/** Each declared resource's mapping, in request order; an unknown kind names its field. */
export async function resolveKinds(
  kinds: Pick<KindSource, "resolve">,
  request: ObservationRequest,
): Promise<{ ok: true; value: ResourceMapping[] } | { ok: false; result: ObserveResult }> {
  const settledMappings = await Promise.allSettled(request.resources.map((r) => kinds.resolve(r.apiVersion, r.kind)));
  const issues: FieldIssue[] = [];
  const value: ResourceMapping[] = [];
  for (const [index, outcome] of settledMappings.entries()) {
    if (outcome.status === "fulfilled") {
      value.push(outcome.value);
    } else if (outcome.reason instanceof UnknownKindError) {
      issues.push({ path: `resources[${index}].kind`, message: outcome.reason.message });
    } else {
      // Discovery itself failed: the kind may well exist; the caller should retry, not fix its request.
      const message = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      return { ok: false, result: { ok: false, code: "unavailable", message: `cannot read the API server's discovery: ${message}` } };
    }
  }
  if (issues.length > 0) return { ok: false, result: { ok: false, code: "invalid_request", message: "unknown kinds", issues } };
  return { ok: true, value };
}

/** Namespaced resources outside `--namespaces` (Secrets: `--secret-namespaces`): no informer would ever see them. */
export function outsideWatchedNamespaces(kinds: KindSource, state: ObservationState): FieldIssue[] {
  return [...state.resources.values()].flatMap((resource, index) => {
    const { namespace, apiVersion, kind } = resource.identity;
    const kindKey = groupKind(apiVersion, kind);
    const watched = kinds.namespacesOf?.(kindKey) ?? kinds.namespaces;
    if (!watched || namespace === undefined || watched.includes(namespace)) return [];
    const flag = watched === kinds.namespaces ? "--namespaces" : "--secret-namespaces";
    return [{ path: `resources[${index}].namespace`, message: `not watched by this service (${flag} ${watched.join(",") || "(none)"})` }];
  });
}

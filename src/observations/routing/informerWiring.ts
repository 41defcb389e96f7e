// Which informers an observation reads, and what they say about it besides objects: that they
// have all listed (the absence grace starts, the caches are read). That one was refused access
// reaches observations through the router's one subscription per kind (eventRouter.ts). A resource is read through the
// informer of its own kind and, for a workload, through those of what it owns (kindFacts): its
// pods, and a Deployment's ReplicaSets too.
import { combineLatest, filter, take, type Observable } from "rxjs";
import { podOwningKinds, replicaSetOwningKinds } from "../../kube/kindFacts.js";
import type { Logger } from "../../logging/index.js";
import type { Informer, ResourceMapping } from "../../streams/index.js";
import { groupKind, type ObservationState } from "../../verdicts/index.js";
import type { KindSource } from "../ports.js";

/**
 * The declared kinds' mappings (one per kind), plus Pods and ReplicaSets when a declared workload
 * owns them. A Pod or ReplicaSet kind that cannot be resolved is logged and left out: the declared
 * kinds are still read.
 *
 * Owned kinds come first: an informer replays its cache on subscription, and the hub's informers
 * serve subscriptions in the order they are made, however many slices a replay takes (one queue
 * for the hub, streams/index.ts), so the pods and ReplicaSets are indexed before a declared
 * workload is judged from its replay, and before `allSynced` lets the caches be read. Otherwise
 * a Job that had already failed when the first observation of Jobs began (always so in local mode,
 * where every informer is new) was judged before its pods were indexed, and its verdict lost the
 * failed container's termination message.
 */
export async function mappingsRead(
  kinds: Pick<KindSource, "resolve">,
  state: ObservationState,
  declared: readonly ResourceMapping[],
  logger: Logger,
): Promise<ResourceMapping[]> {
  const needed = new Map<string, ResourceMapping>();
  const declaredKinds = [...state.resources.values()].map((r) => groupKind(r.identity.apiVersion, r.identity.kind));
  try {
    if (declaredKinds.some((kind) => podOwningKinds.has(kind))) {
      const pods = await kinds.resolve("v1", "Pod");
      needed.set(pods.kindKey, pods);
    }
    if (declaredKinds.some((kind) => replicaSetOwningKinds.has(kind))) {
      const replicaSets = await kinds.resolve("apps/v1", "ReplicaSet");
      needed.set(replicaSets.kindKey, replicaSets);
    }
  } catch (error) {
    logger.error({ observationId: state.observationId, err: error }, "cannot resolve Pod or ReplicaSet");
  }
  for (const mapping of declared) if (!needed.has(mapping.kindKey)) needed.set(mapping.kindKey, mapping);
  return [...needed.values()];
}

/** Emits once, when every one of `informers` has listed. */
export function allSynced(informers: readonly Informer[]): Observable<unknown> {
  return combineLatest(informers.map((informer) => informer.synced$)).pipe(
    filter((flags) => flags.every(Boolean)),
    take(1),
  );
}

// src/streams: Kubernetes watches turned into typed RxJS streams, one shared informer per kind.
//
// Guarantees (what consumers may rely on, and what they must not assume):
// - Order per object: events for one object key (namespace/name) arrive in the order the API
//   server applied the changes. Nothing is promised across keys or across kinds, but for the
//   order of lists, snapshots and synced news below (one queue for the whole hub).
// - Re-creation: an object deleted and created again under the same name is reported as
//   `deleted` then `added` whenever the informer sees both; after a gap it may only see the new
//   object, so a change of `metadata.uid` under the same key is a new object, not an update.
//   Compare UIDs; never assume a `modified` is the same object.
// - Relists replay: after a watch gap (410 Gone) the collection is listed again; objects already
//   seen may come again as `modified` with the state the list holds, objects deleted during the
//   gap come as `deleted` (with their last known state), objects created during it as `added`.
//   Handlers must be idempotent.
// - Late subscribers: `events$` first replays every cached object as `added`, then delivers
//   changes; a subscriber never misses a change between the snapshot and the live stream, and
//   never sees one twice, even when it joins from inside a handler or while a list is applied.
//   Subscriptions are served in the order they were made, across the hub's kinds: one to pods
//   then one to Jobs has every cached pod before the first Job, however long the pods' snapshot.
// - Synced: `synced$` turns true once every namespace watched has been listed and the list's
//   events delivered; before that the cache is partial, and an object's absence means nothing.
//   It is told in turn like a snapshot: after the snapshots of subscriptions made before it.
// - Long lists never hold the event loop: a (re)list, and a late subscriber's snapshot, are
//   applied and delivered a few milliseconds at a time (slicedQueue.ts), yielding to timers and
//   I/O between slices; watch events of that kind arriving meanwhile wait behind them, in order
//   (another kind's are applied at once unless its own lane has work queued). `get` and
//   `list` read the cache as applied so far. A watch event reaching an idle informer, and a
//   short list, are still applied and delivered at once, before the transport's callback returns.
// - Handlers never block: events are delivered synchronously, on the informer's own path;
//   a slow handler delays every other consumer of that kind. Queue work; do not do it inline.
//   A handler may stop the informer: nothing is applied or delivered after stop.
// - Stripped objects: the cache holds what the verdict rules read (see strip.ts), never full
//   objects; ConfigMaps, Secrets and other metadata-only kinds hold metadata alone, and their
//   content is never requested from the API server.
// - Never silent for good: watches resume after the server ends them, relist on 410 Gone,
//   restart with jittered backoff after errors, and a watchdog restarts a watch that delivered
//   nothing (not even a bookmark) for too long.
// - Refusals are said, not only logged: a list or watch refused with 401 or 403 shows on the
//   informer's `problems$` (per namespace watched) until a list succeeds again; retries go on
//   meanwhile, so an informer recovers by itself once RBAC is fixed.
export { accessProblemReasons } from "./accessProblem.js";
export type { AccessProblemReason, InformerProblem } from "./accessProblem.js";
export { createBackoff, defaultBackoffPolicy } from "./backoff.js";
export type { Backoff, BackoffPolicy } from "./backoff.js";
export { ObjectCache, watchEventTypes } from "./cache.js";
export type { WatchEvent, WatchEventType } from "./cache.js";
export { kubeHttpTransport } from "./httpTransport.js";
export { startInformer } from "./informer.js";
export type { Informer, InformerOptions } from "./informer.js";
export { InformerHub } from "./informerHub.js";
export type { InformerHubOptions } from "./informerHub.js";
export { noopStreamMetrics, restartCauses } from "./instrumentation.js";
export type { RestartCause, StreamMetrics } from "./instrumentation.js";
export { defaultReflectorTiming, metadataListAccept, metadataWatchAccept } from "./reflector.js";
export type { ReflectorTiming } from "./reflector.js";
export {
  DiscoveryError,
  RestMapper,
  UnknownKindError,
  builtinMappings,
  collectionPath,
  splitApiVersion,
} from "./restMapper.js";
export type { ResourceMapping } from "./restMapper.js";
export { SlicedQueue, defaultSlicing } from "./slicedQueue.js";
export type { Slicing, Work } from "./slicedQueue.js";
export { selectFields } from "./fieldSelection.js";
export type { KeptFields } from "./fieldSelection.js";
export { keptAnnotations, keptLabelPrefix, readsTheSame, stripObject } from "./strip.js";
export type { StripTarget } from "./strip.js";
export { kubePodLogReader, podLogPath } from "./podLogs.js";
export type { PodLogReader, PodLogRequest } from "./podLogs.js";
export { KubeRequestError, isGone } from "./transport.js";
export { WarningFeed, warningFieldSelector } from "./warningFeed.js";
export type { WarningFeedOptions, WarningSource } from "./warningFeed.js";
export { WarningIndex, defaultWarningIndexLimits } from "./warningIndex.js";
export type { WarningIndexLimits } from "./warningIndex.js";
export type { KubeRequest, KubeTransport, ListPart } from "./transport.js";

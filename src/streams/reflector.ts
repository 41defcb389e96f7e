// One list-then-watch loop over one collection (a kind, cluster-wide or in one namespace),
// feeding a cache. It must never go quiet for good, the failure users of the Node client keep
// reporting (kubernetes-client/javascript #364, #596, #958, #1496):
// - list in pages, each page's items taken as its body arrives (listBody.ts), then watch from the
//   list's resourceVersion with bookmarks, so a quiet collection still hears from the server about
//   once a minute;
// - every watch asks the server to end it (`timeoutSeconds`), and is then resumed from the last
//   resourceVersion seen;
// - 410 Gone (the resourceVersion is older than the server keeps) is answered by a relist;
// - any other failure is retried after an exponential, jittered delay, forgiven after a healthy
//   stretch;
// - a watchdog restarts a watch that delivered nothing, not even a bookmark, for too long: the
//   half-open TCP connection no error ever reports;
// - a list or watch refused (401, 403) is reported to the sink, then retried like any error: RBAC
//   can be fixed while the service runs. After a refusal the next step is a list, because only a
//   list that succeeds proves access is back.
// Timers run on the injected scheduler, so all of this is tested on virtual time.
import type { Logger } from "../logging/index.js";
import { EMPTY, Subscription, expand, map, throwError, timeout, type Observable, type Observer, type SchedulerLike } from "rxjs";
import type { KubeObject } from "../kube/objects.js";
import { accessProblemOf, type InformerProblem } from "./accessProblem.js";
import { createBackoff, defaultBackoffPolicy, type Backoff, type BackoffPolicy } from "./backoff.js";
import type { RestartCause, StreamMetrics } from "./instrumentation.js";
import { collectionPath, type ResourceMapping } from "./restMapper.js";
import { KubeRequestError, isGone, statusError, type KubeTransport } from "./transport.js";

// Secrets and ConfigMaps must never reach the process with their data: the server sends only
// metadata when asked this way. There is deliberately no fallback to plain JSON.
export const metadataListAccept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1";
export const metadataWatchAccept = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";

export interface ReflectorTiming {
  /** Objects per list page (`limit`); a relist of 10,000 pods is 20 requests, not one 60 MB body. */
  pageSize: number;
  /** Each watch asks the server to end it after a random time in [t, 2t) seconds, so watches do not all reconnect at once. */
  watchTimeoutSeconds: number;
  /** A watch silent this long (no event, no bookmark) is restarted; bookmarks come about once a minute. */
  watchdogMs: number;
  /**
   * A watch that ends or fails this soon after it opened, having delivered nothing, is not
   * restarted at once but after the backoff delay: a server that closes every watch straight
   * away must not be hammered.
   */
  minWatchMs: number;
  backoff: BackoffPolicy;
}

export const defaultReflectorTiming: ReflectorTiming = {
  pageSize: 500,
  watchTimeoutSeconds: 300,
  watchdogMs: 300_000,
  minWatchMs: 1_000,
  backoff: defaultBackoffPolicy,
};

/** What a reflector keeps of one object: anything that still says where a watch resumes. */
export interface Versioned {
  readonly metadata: { readonly resourceVersion?: string | undefined };
}

/** Where a reflector delivers what it learns; the informer turns these into events. */
export interface ReflectorSink<T extends Versioned = KubeObject> {
  /** The complete contents of the reflector's scope, after each (re)list. */
  replace(objects: T[], namespace: string | undefined): void;
  upsert(object: T): void;
  remove(object: T): void;
  /** A list or watch was refused; the next `replace` means access is back. */
  refused(problem: InformerProblem): void;
}

export interface ReflectorOptions<T extends Versioned = KubeObject> {
  mapping: ResourceMapping;
  /** One namespace, or the whole cluster when undefined. */
  namespace: string | undefined;
  metadataOnly: boolean;
  /** Only the objects this field selector matches (`type=Warning`), in the list and the watch. */
  fieldSelector?: string;
  /**
   * What is kept of each object as it arrives (stripObject for informers): the raw JSON is
   * dropped at once. Undefined means the value is not an object of the collection.
   */
  decode: (raw: unknown) => T | undefined;
  transport: KubeTransport;
  sink: ReflectorSink<T>;
  scheduler: SchedulerLike;
  timing: ReflectorTiming;
  metrics: StreamMetrics;
  logger: Logger;
  random: () => number;
}

class WatchSilentError extends Error {
  override readonly name = "WatchSilentError";
}

/** Where one list page ends: the resourceVersion it was read at, and where the next page begins. */
interface PageEnd {
  resourceVersion: string | undefined;
  continueToken: string | undefined;
}

export class Reflector<T extends Versioned = KubeObject> {
  private readonly options: ReflectorOptions<T>;
  private readonly backoff: Backoff;
  private readonly path: string;
  /** Where the next watch resumes; undefined means the next step is a list. */
  private resourceVersion: string | undefined;
  /** The list, watch or pending restart in progress: stopping cancels whichever it is. */
  private step: Subscription | undefined;
  private stopped = false;

  constructor(options: ReflectorOptions<T>) {
    this.options = options;
    this.backoff = createBackoff(options.timing.backoff, options.random);
    this.path = collectionPath(options.mapping, options.namespace);
  }

  start(): void {
    this.list();
  }

  stop(): void {
    this.stopped = true;
    this.step?.unsubscribe();
  }

  private list(): void {
    const objects: T[] = [];
    let resourceVersion: string | undefined;
    this.follow(this.pages(), {
      next: (part) => {
        if ("resourceVersion" in part) {
          resourceVersion = part.resourceVersion;
          return;
        }
        for (const item of part.items) {
          const object = this.options.decode(item);
          if (object) objects.push(object);
        }
      },
      error: (error: unknown) => {
        this.noteRefusal(error, "list");
        this.restart(isGone(error) ? "gone" : "error", error, false);
      },
      complete: () => {
        if (resourceVersion === undefined) {
          this.restart("error", new KubeRequestError(`GET ${this.path}: the list has no resourceVersion`), false);
          return;
        }
        this.resourceVersion = resourceVersion;
        this.options.sink.replace(objects, this.options.namespace);
        this.watch();
      },
    });
  }

  /** Every page's items as they arrive, each page's end after its items; the next page is asked for after that. */
  private pages(): Observable<{ readonly items: readonly unknown[] } | PageEnd> {
    const { transport, timing, metadataOnly, fieldSelector } = this.options;
    const page = (continueToken?: string) =>
      transport
        .list({
          path: this.path,
          accept: metadataOnly ? metadataListAccept : undefined,
          query: { limit: timing.pageSize, continue: continueToken, fieldSelector },
        })
        .pipe(map((part) => ("envelope" in part ? pageEnd(part.envelope, this.path) : part)));
    return page().pipe(expand((part) => ("continueToken" in part && part.continueToken ? page(part.continueToken) : EMPTY)));
  }

  private watch(): void {
    const { transport, timing, scheduler, metadataOnly, fieldSelector, random } = this.options;
    const startedAt = scheduler.now();
    let delivered = false;
    const healthy = () => delivered || scheduler.now() - startedAt >= timing.minWatchMs;
    const request = {
      path: this.path,
      accept: metadataOnly ? metadataWatchAccept : undefined,
      query: {
        watch: true,
        fieldSelector,
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(timing.watchTimeoutSeconds * (1 + random())),
      },
    };
    const silence = () => throwError(() => new WatchSilentError(`no event and no bookmark for ${timing.watchdogMs} ms`));
    this.follow(transport.watch(request).pipe(timeout({ each: timing.watchdogMs, with: silence, scheduler })), {
      next: (line) => {
        const failure = this.apply(line);
        if (failure) {
          this.noteRefusal(failure, "watch");
          this.restart(isGone(failure) ? "gone" : "error", failure, healthy());
        } else {
          delivered = true;
        }
      },
      error: (error: unknown) => {
        this.noteRefusal(error, "watch");
        const cause: RestartCause = error instanceof WatchSilentError ? "watchdog" : isGone(error) ? "gone" : "error";
        this.restart(cause, error, healthy());
      },
      complete: () => this.restart("closed", undefined, healthy()),
    });
  }

  /** Applies one watch line to the sink; returns the failure an ERROR event (or a malformed line) stands for. */
  private apply(line: unknown): KubeRequestError | undefined {
    const { sink, metrics, mapping } = this.options;
    const event = typeof line === "object" && line !== null ? (line as { type?: unknown; object?: unknown }) : {};
    if (typeof event.type !== "string") {
      return new KubeRequestError(`watch ${this.path}: a line that is not a watch event`);
    }
    metrics.watchEvent(mapping.kindKey, event.type.toLowerCase());
    switch (event.type) {
      case "ADDED":
      case "MODIFIED":
      case "DELETED": {
        const object = this.options.decode(event.object);
        if (!object) return new KubeRequestError(`watch ${this.path}: a ${event.type} event without an object`);
        this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
        if (event.type === "DELETED") sink.remove(object);
        else sink.upsert(object);
        return undefined;
      }
      case "BOOKMARK": {
        // A bookmark carries only metadata.resourceVersion: progress without a change.
        const metadata = (event.object as { metadata?: { resourceVersion?: unknown } } | undefined)?.metadata;
        if (typeof metadata?.resourceVersion === "string") this.resourceVersion = metadata.resourceVersion;
        return undefined;
      }
      case "ERROR":
        return statusError(event.object, `watch ${this.path}`);
      default:
        return new KubeRequestError(`watch ${this.path}: unknown event type ${event.type}`);
    }
  }

  private noteRefusal(error: unknown, verb: InformerProblem["verb"]): void {
    const problem = accessProblemOf(error, verb, this.options.namespace);
    if (!problem) return;
    this.resourceVersion = undefined;
    this.options.sink.refused(problem);
  }

  private restart(cause: RestartCause, error: unknown, healthy: boolean): void {
    const { scheduler, metrics, logger, mapping, namespace } = this.options;
    this.step?.unsubscribe();
    if (this.stopped) return;
    metrics.watchRestart(mapping.kindKey, cause);
    if (cause === "gone") this.resourceVersion = undefined;
    // Errors always wait; a watch that ran well and ended (or went silent, or expired) is
    // resumed at once, unless it ended before it ever worked.
    const delayMs = cause === "error" || !healthy ? this.backoff.next(scheduler.now()) : 0;
    const fields = { kind: mapping.kindKey, namespace, cause, delayMs: Math.round(delayMs), err: error };
    if (cause === "error") logger.warn(fields, "watch failed, restarting");
    else if (cause === "closed") logger.debug(fields, "watch ended, resuming");
    else logger.info(fields, cause === "gone" ? "resourceVersion expired, relisting" : "watch silent, restarting");
    this.step = scheduler.schedule(() => (this.resourceVersion === undefined ? this.list() : this.watch()), delayMs);
  }

  // The step is recorded before subscribing: a source that answers synchronously may already
  // have moved the reflector on (restart, next step) by the time subscribe returns, and adding
  // the finished subscription to a closed step then simply discards it.
  private follow<T>(source: Observable<T>, observer: Observer<T>): void {
    // Events reach consumers synchronously, and a consumer may stop the informer from inside a
    // handler, between two steps of this reflector: no new request after that.
    if (this.stopped) return;
    const step = new Subscription();
    this.step = step;
    step.add(source.subscribe(observer));
  }
}

/** A page's envelope (the list without its items, which came before it) read for where the page ends. */
function pageEnd(envelope: unknown, path: string): PageEnd {
  const list = typeof envelope === "object" && envelope !== null ? (envelope as { items?: unknown; metadata?: unknown }) : {};
  if (typeof list.metadata !== "object" || list.metadata === null) {
    throw new KubeRequestError(`GET ${path}: the answer is not a list`);
  }
  // An empty PartialObjectMetadataList comes as `"items": null` (a nil Go slice), unlike typed lists.
  if (!Array.isArray(list.items) && list.items !== null) {
    throw new KubeRequestError(`GET ${path}: the answer is not a list`);
  }
  const metadata = list.metadata as { resourceVersion?: unknown; continue?: unknown };
  return {
    resourceVersion: typeof metadata.resourceVersion === "string" ? metadata.resourceVersion : undefined,
    continueToken: typeof metadata.continue === "string" && metadata.continue !== "" ? metadata.continue : undefined,
  };
}

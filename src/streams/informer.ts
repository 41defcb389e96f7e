// A shared informer: the cache of one kind, kept current by one reflector per namespace watched
// (or one for the whole cluster), and the streams consumers read it through.
import type { Logger } from "../logging/index.js";
import { BehaviorSubject, Observable, Subject, distinctUntilChanged, type SchedulerLike } from "rxjs";
import type { KubeObject } from "../kube/objects.js";
import { sameProblem, type InformerProblem } from "./accessProblem.js";
import { ObjectCache, type WatchEvent } from "./cache.js";
import type { StreamMetrics } from "./instrumentation.js";
import { Reflector, type ReflectorTiming } from "./reflector.js";
import type { KeptFields } from "./fieldSelection.js";
import { stripObject, type StripTarget } from "./strip.js";
import type { ResourceMapping } from "./restMapper.js";
import type { KubeTransport } from "./transport.js";

export interface Informer {
  readonly mapping: ResourceMapping;
  /**
   * On subscription, every object already cached as `added`; then every change as it happens.
   * Hot and shared: subscribing never starts another watch.
   */
  readonly events$: Observable<WatchEvent>;
  /** `false` until every namespace watched has been listed once, then `true` for good. */
  readonly synced$: Observable<boolean>;
  /**
   * The lists or watches the API server refuses (401, 403), one per namespace watched (one, with no
   * namespace, for a cluster-wide informer); empty when none is. The current value on
   * subscription, then each change: a scope's problem is set when its request is refused and
   * cleared by its next list that succeeds. The informer keeps retrying meanwhile.
   */
  readonly problems$: Observable<readonly InformerProblem[]>;
  hasSynced(): boolean;
  /** `namespace` is undefined for cluster-scoped kinds. */
  get(namespace: string | undefined, name: string): KubeObject | undefined;
  /** Every cached object, or those of one namespace. */
  list(namespace?: string): KubeObject[];
  /** Ends the watches; the streams complete. */
  stop(): void;
}

export interface InformerOptions {
  mapping: ResourceMapping;
  /** Watch only these namespaces (one watch each); the whole cluster when undefined. Ignored for cluster-scoped kinds. */
  namespaces: readonly string[] | undefined;
  /** List and watch as PartialObjectMetadata: the objects' content never reaches the process. */
  metadataOnly: boolean;
  /** The fields of spec and status to keep (kinds judged by CEL health checks): what their expressions read. */
  keptFields?: KeptFields | undefined;
  transport: KubeTransport;
  scheduler: SchedulerLike;
  timing: ReflectorTiming;
  metrics: StreamMetrics;
  logger: Logger;
  random: () => number;
  /** Called once when the informer stops (the hub forgets it). */
  onStop?: () => void;
}

export function startInformer(options: InformerOptions): Informer {
  return new SharedInformer(options);
}

class SharedInformer implements Informer {
  readonly mapping: ResourceMapping;
  readonly events$: Observable<WatchEvent>;
  readonly synced$: Observable<boolean>;
  readonly problems$: Observable<readonly InformerProblem[]>;
  private readonly cache = new ObjectCache();
  private readonly changes = new Subject<WatchEvent>();
  private readonly synced = new BehaviorSubject(false);
  private readonly problems = new BehaviorSubject<readonly InformerProblem[]>([]);
  private readonly reflectors: Reflector[];
  private readonly onStop: (() => void) | undefined;
  private readonly logger: Logger;
  private stopped = false;

  constructor(options: InformerOptions) {
    this.mapping = options.mapping;
    this.onStop = options.onStop;
    this.logger = options.logger;
    // The snapshot and the subscription to changes happen in one synchronous step, so no change
    // falls between them and none is seen twice.
    this.events$ = new Observable<WatchEvent>((subscriber) => {
      for (const object of this.cache.list()) {
        if (subscriber.closed) break;
        subscriber.next({ type: "added", object });
      }
      return this.changes.subscribe(subscriber);
    });
    this.synced$ = this.synced.pipe(distinctUntilChanged());
    this.problems$ = this.problems.asObservable();

    const scopes = options.mapping.namespaced && options.namespaces ? [...new Set(options.namespaces)] : [undefined];
    const unlisted = new Set(scopes);
    const { apiVersion, kind, kindKey } = options.mapping;
    const target: StripTarget = { apiVersion, kind, kindKey, metadataOnly: options.metadataOnly, ...(options.keptFields && { keptFields: options.keptFields }) };
    // The gauge is set when the count moves, not on every update (most are modifications): a
    // labelled set hashes its labels each call, on the path of every watch event.
    let reportedSize: number | undefined;
    const publish = (events: WatchEvent[]) => {
      if (this.cache.size !== reportedSize) options.metrics.objects(kindKey, (reportedSize = this.cache.size));
      for (const event of events) this.changes.next(event);
    };
    this.reflectors = scopes.map(
      (namespace) =>
        new Reflector({
          ...options,
          namespace,
          decode: (raw) => stripObject(raw, target),
          sink: {
            replace: (objects) => {
              this.clearProblem(namespace);
              publish(this.cache.replace(objects, namespace));
              unlisted.delete(namespace);
              if (unlisted.size === 0 && !this.synced.value) {
                options.logger.info({ kind: kindKey, objects: this.cache.size }, "informer synced");
                this.synced.next(true);
              }
            },
            upsert: (object) => publish(this.cache.upsert(object)),
            remove: (object) => publish(this.cache.remove(object)),
            refused: (problem) => this.setProblem(problem),
          },
        }),
    );
    for (const reflector of this.reflectors) reflector.start();
  }

  hasSynced(): boolean {
    return this.synced.value;
  }

  // Every retry of a refused request reports the same problem again: only a change is emitted.
  private setProblem(problem: InformerProblem): void {
    const current = this.problems.value;
    if (current.some((known) => sameProblem(known, problem))) return;
    this.logger.warn({ kind: this.mapping.kindKey, ...problem }, "access refused; observations waiting on this kind fail until it is granted");
    this.problems.next([...current.filter((known) => known.namespace !== problem.namespace), problem]);
  }

  private clearProblem(namespace: string | undefined): void {
    const current = this.problems.value;
    if (current.some((known) => known.namespace === namespace)) {
      this.logger.info({ kind: this.mapping.kindKey, namespace }, "access granted again");
      this.problems.next(current.filter((known) => known.namespace !== namespace));
    }
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.cache.get(namespace, name);
  }

  list(namespace?: string): KubeObject[] {
    return this.cache.list(namespace);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const reflector of this.reflectors) reflector.stop();
    this.changes.complete();
    this.synced.complete();
    this.problems.complete();
    this.onStop?.();
  }
}

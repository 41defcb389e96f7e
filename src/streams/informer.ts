// A shared informer: the cache of one kind, kept current by one reflector per namespace watched
// (or one for the whole cluster), and the streams consumers read it through.
import type { Logger } from "../logging/index.js";
import { BehaviorSubject, Observable, Subject, Subscription, type SchedulerLike, type Subscriber } from "rxjs";
import type { KubeObject } from "../kube/objects.js";
import { sameProblem, type InformerProblem } from "./accessProblem.js";
import { ObjectCache, type WatchEvent } from "./cache.js";
import type { StreamMetrics } from "./instrumentation.js";
import { Reflector, type ReflectorTiming } from "./reflector.js";
import type { KeptFields } from "./fieldSelection.js";
import { stripObject, type StripTarget } from "./strip.js";
import type { ResourceMapping } from "./restMapper.js";
import type { QueueLane, SlicedQueue, Work } from "./slicedQueue.js";
import type { KubeTransport } from "./transport.js";

export interface Informer {
  readonly mapping: ResourceMapping;
  /**
   * On subscription, every object already cached as `added`; then every change as it happens.
   * Hot and shared: subscribing never starts another watch. The snapshot is delivered in turn with
   * the informer's other work: at once, before subscribe returns, when the informer is idle and
   * the cache small; after the list being applied, or a slice at a time, otherwise.
   */
  readonly events$: Observable<WatchEvent>;
  /**
   * `false` until every namespace watched has been listed once, then `true` for good. Told in turn
   * with the hub's other work, like a snapshot: a subscriber that subscribed to `events$` first (of
   * this kind or of another kind of the same hub) has had every snapshot before it hears `true`.
   */
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
  /**
   * Where the informer's changes, snapshots and synced news are applied in turn, a slice at a
   * time: the hub's one queue, shared by its informers so that order holds across kinds.
   */
  queue: SlicedQueue;
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
  private synced = false;
  /**
   * Every subscriber of synced$ once its turn came, told `false` and waiting for `true` (or told
   * `true` already, kept to be completed on stop). A Set, not a Subject: ten thousand observations
   * each subscribed, and a Subject's array made every unsubscription cost a scan of it.
   */
  private readonly syncedSubscribers = new Set<Subscriber<boolean>>();
  private readonly problems = new BehaviorSubject<readonly InformerProblem[]>([]);
  private readonly reflectors: Reflector[];
  private readonly onStop: (() => void) | undefined;
  private readonly logger: Logger;
  private readonly metrics: StreamMetrics;
  /** Every change to the cache, in order, applied and published a slice at a time, in the hub's order. */
  private readonly applying: QueueLane;
  /** The namespaces (undefined: the whole cluster) whose first list is not applied yet. */
  private readonly unlisted: Set<string | undefined>;
  private reportedSize: number | undefined;
  /** Subscribers whose snapshot or synced news is queued or in progress: stop() completes them, as it does the others. */
  private readonly joining = new Set<Subscriber<never>>();
  private stopped = false;

  constructor(options: InformerOptions) {
    this.mapping = options.mapping;
    this.onStop = options.onStop;
    this.logger = options.logger;
    // The snapshot is work of the queue like any change, so no change falls between it and the
    // subscription to changes, and none is seen twice: while it is delivered (a slice at a time
    // when the cache is large) nothing else touches the cache. A subscriber joining from inside a
    // handler, or while a list is being applied, is served in turn, after what is queued.
    this.events$ = new Observable<WatchEvent>((subscriber) => this.joinInTurn(subscriber, (joined) => this.replaying(subscriber, joined)));
    // In turn too: an observation reads the caches once its informers have synced, and must not
    // before the snapshots it subscribed to first have been indexed (informerWiring.ts).
    this.synced$ = new Observable<boolean>((subscriber) =>
      this.joinInTurn(subscriber, (joined) => () => {
        this.joining.delete(subscriber);
        subscriber.next(this.synced);
        this.syncedSubscribers.add(subscriber);
        joined.add(() => this.syncedSubscribers.delete(subscriber));
      }),
    );
    this.problems$ = this.problems.asObservable();

    const scopes = options.mapping.namespaced && options.namespaces ? [...new Set(options.namespaces)] : [undefined];
    this.unlisted = new Set(scopes);
    this.metrics = options.metrics;
    this.applying = options.queue.lane();
    const { apiVersion, kind, kindKey } = options.mapping;
    const target: StripTarget = { apiVersion, kind, kindKey, metadataOnly: options.metadataOnly, ...(options.keptFields && { keptFields: options.keptFields }) };
    this.reflectors = scopes.map(
      (namespace) =>
        new Reflector({
          ...options,
          namespace,
          decode: (raw) => stripObject(raw, target),
          // Every change goes through the lane, so the cache and what is published move together,
          // in the order the reflectors delivered: a watch event arriving while a long list of its
          // kind is still being applied waits behind it. Lists keep the hub's order across kinds
          // (the pods' first list applied before a Jobs' list that came after it); a watch event
          // follows its own kind's work only, and with none queued is applied at once.
          sink: {
            replace: (objects) => {
              this.clearProblem(namespace);
              this.applying.push(this.replacing(objects, namespace));
            },
            upsert: (object) => this.applying.pushAfterOwn(() => this.publish(this.cache.upsert(object))),
            remove: (object) => this.applying.pushAfterOwn(() => this.publish(this.cache.remove(object))),
            refused: (problem) => this.setProblem(problem),
          },
        }),
    );
    for (const reflector of this.reflectors) reflector.start();
  }

  /**
   * A (re)list applied one object per step, each step's events published as it is applied, so
   * `get` and `list` between two slices agree with what subscribers have been told. The
   * namespace counts as listed only after its last step, deletions included.
   */
  private *replacing(objects: readonly KubeObject[], namespace: string | undefined): Generator<void, void, undefined> {
    for (const events of this.cache.replaceSteps(objects, namespace)) {
      for (const event of events) this.changes.next(event);
      yield;
    }
    // Once per list, not once per object.
    this.reportSize();
    this.unlisted.delete(namespace);
    if (this.unlisted.size === 0 && !this.synced) {
      this.logger.info({ kind: this.mapping.kindKey, objects: this.cache.size }, "informer synced");
      this.synced = true;
      yield* this.tellSynced();
    }
  }

  /**
   * `true` to each subscriber waiting for it, one per step: what a subscriber does on hearing it
   * (an observation reads the caches and judges its workload) is work of its own, and ten
   * thousand observations told in one step held the loop for a second.
   */
  private *tellSynced(): Generator<void, void, undefined> {
    for (const subscriber of [...this.syncedSubscribers]) {
      if (subscriber.closed || !this.syncedSubscribers.has(subscriber)) continue;
      subscriber.next(true);
      yield;
    }
  }

  /** Queues `work` for a new subscriber, who is completed if the informer stops before it runs. */
  private joinInTurn<T>(subscriber: Subscriber<T>, work: (joined: Subscription) => Work): Subscription {
    const joined = new Subscription();
    // The lane is stopped, and would never serve it: the streams have completed.
    if (this.stopped) {
      subscriber.complete();
      return joined;
    }
    this.joining.add(subscriber);
    joined.add(() => this.joining.delete(subscriber));
    this.applying.push(work(joined));
    return joined;
  }

  /** A subscriber's snapshot, one object per step, then its subscription to the changes after it. */
  private *replaying(subscriber: Subscriber<WatchEvent>, joined: Subscription): Generator<void, void, undefined> {
    for (const object of this.cache.list()) {
      if (subscriber.closed) return;
      subscriber.next({ type: "added", object });
      yield;
    }
    this.joining.delete(subscriber);
    joined.add(this.changes.subscribe(subscriber));
  }

  /** One watch event's changes. */
  private publish(events: readonly WatchEvent[]): void {
    this.reportSize();
    for (const event of events) this.changes.next(event);
  }

  // The gauge is set when the count moves, not on every update (most are modifications): a
  // labelled set hashes its labels each call, on the path of every watch event.
  private reportSize(): void {
    if (this.cache.size !== this.reportedSize) this.metrics.objects(this.mapping.kindKey, (this.reportedSize = this.cache.size));
  }

  hasSynced(): boolean {
    return this.synced;
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
    this.applying.stop();
    for (const subscriber of [...this.joining]) subscriber.complete();
    this.changes.complete();
    for (const subscriber of [...this.syncedSubscribers]) subscriber.complete();
    this.syncedSubscribers.clear();
    this.problems.complete();
    this.onStop?.();
  }
}

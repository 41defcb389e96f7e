// Warning events, read through one shared watch (one per namespace when the service watches a
// namespace list) with the field selector `type=Warning`: Normal events (Scheduled, Pulled,
// Started, ScalingReplicaSet), most of a cluster's event traffic, never reach the process. What is
// kept is the WarningIndex: the newest warning per object, bounded in count and age, never the
// Event objects themselves.
//
// Warnings are a diagnosis, not a verdict's input it cannot do without: a list or watch refused
// (no RBAC for events) is logged once, retried like any other, and observations go on without them.
//
// A list of warnings is offered a slice at a time (slicedQueue.ts), as an informer applies its
// lists: each warning offered may make observations read their workloads again, and a cluster in
// trouble keeps tens of thousands of Warning events. Watch events wait behind the list, in order.
import type { Logger } from "../logging/index.js";
import { Observable, Subject, share, type SchedulerLike } from "rxjs";
import { decodeWarningEvent, type ClusterWarning, type WarnedObject, type WarningEventLine } from "../kube/warnings.js";
import type { InformerProblem } from "./accessProblem.js";
import type { StreamMetrics } from "./instrumentation.js";
import { Reflector, type ReflectorTiming } from "./reflector.js";
import { builtinMappings } from "./restMapper.js";
import type { QueueLane, SlicedQueue } from "./slicedQueue.js";
import type { KubeTransport } from "./transport.js";
import { WarningIndex, type WarningIndexLimits } from "./warningIndex.js";

export interface WarningSource {
  /** Each warning as it becomes the newest about its object. Starts the watch on first subscription. */
  readonly warnings$: Observable<ClusterWarning>;
  /** The newest warning about the object (its UID, kind, namespace and name), if one is young enough. */
  newest(object: WarnedObject): ClusterWarning | undefined;
}

export interface WarningFeedOptions {
  transport: KubeTransport;
  /** Watch only these namespaces; the whole cluster when undefined. */
  namespaces: readonly string[] | undefined;
  scheduler: SchedulerLike;
  timing: ReflectorTiming;
  /** The hub's queue: a list of warnings is offered in turn with the informers' work. */
  queue: SlicedQueue;
  metrics: StreamMetrics;
  logger: Logger;
  random: () => number;
  limits?: Partial<WarningIndexLimits>;
}

const eventMapping = builtinMappings.find((mapping) => mapping.kindKey === "core/Event")!;
export const warningFieldSelector = "type=Warning";

export class WarningFeed implements WarningSource {
  readonly warnings$: Observable<ClusterWarning>;
  private readonly index: WarningIndex;
  private readonly options: WarningFeedOptions;
  private readonly arrived = new Subject<ClusterWarning>();
  private readonly offering: QueueLane;
  private reflectors: Reflector<WarningEventLine>[] = [];

  constructor(options: WarningFeedOptions) {
    this.options = options;
    this.index = new WarningIndex(options.limits);
    this.offering = options.queue.lane();
    // Started by the first subscriber and kept running: the index must fill whether or not an
    // observation is in progress at the moment a warning comes.
    this.warnings$ = new Observable<ClusterWarning>((subscriber) => {
      // Subscribed before starting: a list answered at once must not deliver into the void.
      const subscription = this.arrived.subscribe(subscriber);
      if (this.reflectors.length === 0) this.start();
      return subscription;
    }).pipe(share());
  }

  get size(): number {
    return this.index.size;
  }

  newest(object: WarnedObject): ClusterWarning | undefined {
    return this.index.newest(object, this.options.scheduler.now());
  }

  stop(): void {
    for (const reflector of this.reflectors) reflector.stop();
    this.offering.stop();
    this.arrived.complete();
  }

  private start(): void {
    const { namespaces, logger } = this.options;
    const scopes = namespaces ? [...new Set(namespaces)] : [undefined];
    const refused = new Set<string | undefined>();
    this.reflectors = scopes.map(
      (namespace) =>
        new Reflector<WarningEventLine>({
          ...this.options,
          mapping: eventMapping,
          namespace,
          metadataOnly: false,
          fieldSelector: warningFieldSelector,
          decode: decodeWarningEvent,
          sink: {
            replace: (lines) => {
              if (refused.delete(namespace)) logger.info({ kind: eventMapping.kindKey, namespace }, "access to events granted again");
              this.offering.push(this.offerAll(lines));
            },
            upsert: (line) =>
              this.offering.pushAfterOwn(() => {
                this.offer(line);
                this.reportSize();
              }),
            // An event removed (its TTL ran out) is no sign the trouble ended; the index ages warnings out by itself.
            remove: () => undefined,
            refused: (problem: InformerProblem) => {
              if (refused.has(namespace)) return;
              refused.add(namespace);
              logger.warn({ kind: eventMapping.kindKey, ...problem }, "cannot read Warning events; verdicts go on without them");
            },
          },
        }),
    );
    for (const reflector of this.reflectors) reflector.start();
  }

  /** A list's warnings, one per step, then the gauge once. */
  private *offerAll(lines: readonly WarningEventLine[]): Generator<void, void, undefined> {
    for (const line of lines) {
      this.offer(line);
      yield;
    }
    this.reportSize();
  }

  private offer(line: WarningEventLine): void {
    if (line.warning && this.index.offer(line.warning, this.options.scheduler.now())) this.arrived.next(line.warning);
  }

  private reportSize(): void {
    this.options.metrics.objects(eventMapping.kindKey, this.index.size);
  }
}

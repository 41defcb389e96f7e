// Warning events, read through one shared watch (one per namespace when the service watches a
// namespace list) with the field selector `type=Warning`: Normal events (Scheduled, Pulled,
// Started, ScalingReplicaSet), most of a cluster's event traffic, never reach the process. What is
// kept is the WarningIndex: the newest warning per object, bounded in count and age, never the
// Event objects themselves.
//
// One Normal writer is read besides: cluster-autoscaler, whose TriggeredScaleUp and
// NotTriggerScaleUp on an unplaced pod say whether a node is coming (kube/warnings.ts
// autoscalerReasons). A second watch a scope selects `type=Normal,source=cluster-autoscaler`: on a
// cluster without one it carries nothing; with one, its other Normal events (scale-down notes on
// nodes and pods, the status ConfigMap's ScaledUpGroup) come too and are dropped as they are
// decoded. One watch by source rather than one a reason, since a field selector cannot say "or".
// Its words are kept in an index of their own: the scheduler writing FailedScheduling again when
// the new node registers, still tainted not-ready, must not hide that a scale-up is under way.
//
// Warnings are a diagnosis, not a verdict's input it cannot do without: a list or watch refused
// (no RBAC for events) is logged once, retried like any other, and observations go on without them.
//
// A list of warnings is offered a slice at a time (slicedQueue.ts), as an informer applies its
// lists: each warning offered may make observations read their workloads again, and a cluster in
// trouble keeps tens of thousands of Warning events. Watch events wait behind the list, in order.
import type { Logger } from "../logging/index.js";
import { Observable, Subject, share, type SchedulerLike } from "rxjs";
import { autoscalerReasonSet, decodeWarningEvent, type ClusterWarning, type WarnedObject, type WarningEventLine } from "../kube/warnings.js";
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
  /** The newest warning about an object known by name only (a claim a pod mounts), if one is young enough. */
  newestNamed(kind: string, namespace: string, name: string): ClusterWarning | undefined;
  /** cluster-autoscaler's newest word (TriggeredScaleUp, NotTriggerScaleUp) about the pod, if one is young enough. */
  newestAutoscalerWord(pod: WarnedObject): ClusterWarning | undefined;
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
export const autoscalerFieldSelector = "type=Normal,source=cluster-autoscaler";

/** One selection of events and the index its events go to. */
interface Selection {
  readonly fieldSelector: string;
  readonly index: WarningIndex;
  /** Whether a decoded event belongs in the index (the selector cannot narrow by reason too). */
  readonly keeps: (warning: ClusterWarning) => boolean;
  /** Logged once a scope when the events cannot be read. */
  readonly refusal: string;
}

export class WarningFeed implements WarningSource {
  readonly warnings$: Observable<ClusterWarning>;
  private readonly index: WarningIndex;
  private readonly autoscalerWords: WarningIndex;
  private readonly options: WarningFeedOptions;
  private readonly arrived = new Subject<ClusterWarning>();
  private readonly offering: QueueLane;
  private reflectors: Reflector<WarningEventLine>[] = [];

  constructor(options: WarningFeedOptions) {
    this.options = options;
    this.index = new WarningIndex(options.limits);
    this.autoscalerWords = new WarningIndex(options.limits);
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
    return this.index.size + this.autoscalerWords.size;
  }

  newest(object: WarnedObject): ClusterWarning | undefined {
    return this.index.newest(object, this.options.scheduler.now());
  }

  newestNamed(kind: string, namespace: string, name: string): ClusterWarning | undefined {
    return this.index.newestNamed(kind, namespace, name, this.options.scheduler.now());
  }

  newestAutoscalerWord(pod: WarnedObject): ClusterWarning | undefined {
    return this.autoscalerWords.newest(pod, this.options.scheduler.now());
  }

  stop(): void {
    for (const reflector of this.reflectors) reflector.stop();
    this.offering.stop();
    this.arrived.complete();
  }

  private start(): void {
    const scopes = this.options.namespaces ? [...new Set(this.options.namespaces)] : [undefined];
    const selections: Selection[] = [
      { fieldSelector: warningFieldSelector, index: this.index, keeps: () => true, refusal: "cannot read Warning events; verdicts go on without them" },
      {
        fieldSelector: autoscalerFieldSelector,
        index: this.autoscalerWords,
        keeps: (warning) => warning.involved.kind === "Pod" && autoscalerReasonSet.has(warning.reason),
        refusal: "cannot read cluster-autoscaler's events; verdicts go on without them",
      },
    ];
    this.reflectors = selections.flatMap((selection) => scopes.map((namespace) => this.reflector(selection, namespace)));
    for (const reflector of this.reflectors) reflector.start();
  }

  private reflector(selection: Selection, namespace: string | undefined): Reflector<WarningEventLine> {
    const { logger } = this.options;
    let refused = false;
    return new Reflector<WarningEventLine>({
      ...this.options,
      mapping: eventMapping,
      namespace,
      metadataOnly: false,
      fieldSelector: selection.fieldSelector,
      decode: decodeWarningEvent,
      sink: {
        replace: (lines) => {
          if (refused) logger.info({ kind: eventMapping.kindKey, namespace, fieldSelector: selection.fieldSelector }, "access to events granted again");
          refused = false;
          this.offering.push(this.offerAll(selection, lines));
        },
        upsert: (line) =>
          this.offering.pushAfterOwn(() => {
            this.offer(selection, line);
            this.reportSize();
          }),
        // An event removed (its TTL ran out) is no sign the trouble ended; the index ages warnings out by itself.
        remove: () => undefined,
        refused: (problem: InformerProblem) => {
          if (refused) return;
          refused = true;
          logger.warn({ kind: eventMapping.kindKey, fieldSelector: selection.fieldSelector, ...problem }, selection.refusal);
        },
      },
    });
  }

  /** A list's warnings, one per step, then the gauge once. */
  private *offerAll(selection: Selection, lines: readonly WarningEventLine[]): Generator<void, void, undefined> {
    for (const line of lines) {
      this.offer(selection, line);
      yield;
    }
    this.reportSize();
  }

  private offer({ index, keeps }: Selection, { warning }: WarningEventLine): void {
    if (warning && keeps(warning) && index.offer(warning, this.options.scheduler.now())) this.arrived.next(warning);
  }

  private reportSize(): void {
    this.options.metrics.objects(eventMapping.kindKey, this.size);
  }
}

// One shared informer per kind for the whole service, started the first time something needs
// that kind: a thousand observations of Deployments share one Deployment watch (one per
// namespace when the service watches a namespace list), never one watch each.
import { silentLogger, type Logger } from "../logging/index.js";
import { asyncScheduler, type SchedulerLike } from "rxjs";
import { metadataOnlyKinds } from "../kube/kindFacts.js";
import type { KeptFields } from "./fieldSelection.js";
import { startInformer, type Informer } from "./informer.js";
import { noopStreamMetrics, type StreamMetrics } from "./instrumentation.js";
import { defaultReflectorTiming, type ReflectorTiming } from "./reflector.js";
import { SlicedQueue, defaultSlicing, type Slicing } from "./slicedQueue.js";
import { RestMapper, UnknownKindError, type ResourceMapping } from "./restMapper.js";
import type { KubeTransport } from "./transport.js";
import { WarningFeed } from "./warningFeed.js";

export interface InformerHubOptions {
  transport: KubeTransport;
  /** Defaults to a RestMapper over the same transport. */
  restMapper?: RestMapper;
  /** Watch only these namespaces; the whole cluster when undefined. */
  namespaces?: readonly string[];
  /**
   * Secrets are watched (metadata only) in these namespaces alone, when the hub watches the whole
   * cluster: RBAC has no metadata-only verb, so `list` on Secrets cluster-wide would let the
   * service's token read every Secret's data. Undefined: as every other kind.
   */
  secretNamespaces?: readonly string[];
  /**
   * The fields of spec and status the cache keeps of a kind judged by a CEL health check (the
   * health library's or the configuration's): what its expressions read. Undefined for other kinds.
   */
  keptFieldsOf?: (kindKey: string) => KeptFields | undefined;
  /** Drives backoff, watchdog and restarts; a virtual-time scheduler in tests. */
  scheduler?: SchedulerLike;
  timing?: Partial<ReflectorTiming>;
  /** How informers and the warning feed spread a long list over turns of the event loop (defaultSlicing). */
  slicing?: Partial<Slicing>;
  metrics?: StreamMetrics;
  logger?: Logger;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

export class InformerHub {
  readonly restMapper: RestMapper;
  readonly namespaces: readonly string[] | undefined;
  private readonly options: InformerHubOptions;
  private readonly running = new Map<string, Informer>();
  private warningFeed: WarningFeed | undefined;
  /**
   * Every informer's and the warning feed's work, in one order: what a subscriber subscribes to
   * first it hears first, whatever the kinds (pods before the Jobs that own them), however long a
   * snapshot or a list takes to deliver.
   */
  private readonly queue: SlicedQueue;

  constructor(options: InformerHubOptions) {
    this.options = options;
    this.queue = new SlicedQueue({ ...defaultSlicing, ...options.slicing });
    this.restMapper = options.restMapper ?? new RestMapper(options.transport);
    this.namespaces = options.namespaces;
  }

  /** apiVersion + kind to its resource, through discovery (see RestMapper). */
  resolve(apiVersion: string, kind: string): Promise<ResourceMapping> {
    return this.restMapper.resolve(apiVersion, kind);
  }

  /**
   * The informer of a kind, started on first use. A kind key (`core/Pod`, `apps/ReplicaSet`) must be
   * a built-in mapping or resolved before; anything else throws UnknownKindError.
   */
  informer(target: ResourceMapping | string): Informer {
    const mapping = typeof target === "string" ? this.restMapper.cached(target) : target;
    if (!mapping) {
      throw new UnknownKindError(String(target), undefined, "not resolved yet: resolve(apiVersion, kind) first");
    }
    const existing = this.running.get(mapping.kindKey);
    if (existing) return existing;
    const informer = startInformer({
      mapping,
      namespaces: this.namespacesOf(mapping.kindKey),
      metadataOnly: metadataOnlyKinds.has(mapping.kindKey),
      keptFields: this.options.keptFieldsOf?.(mapping.kindKey),
      ...this.watching(),
      onStop: () => this.running.delete(mapping.kindKey),
    });
    this.running.set(mapping.kindKey, informer);
    return informer;
  }

  /** Where a kind is watched: Secrets only in `secretNamespaces` when given; undefined is the whole cluster. */
  namespacesOf(kindKey: string): readonly string[] | undefined {
    return kindKey === "core/Secret" && this.namespaces === undefined && this.options.secretNamespaces ? this.options.secretNamespaces : this.namespaces;
  }

  /** resolve, then informer. */
  async informerFor(apiVersion: string, kind: string): Promise<Informer> {
    return this.informer(await this.resolve(apiVersion, kind));
  }

  /** The Warning events feed, shared like the informers; its watch starts with its first subscriber. */
  warnings(): WarningFeed {
    this.warningFeed ??= new WarningFeed({ namespaces: this.namespaces, ...this.watching() });
    return this.warningFeed;
  }

  /** What every watch of the hub is made with: the informers' and the Warning events feed's alike. */
  private watching() {
    return {
      transport: this.options.transport,
      scheduler: this.options.scheduler ?? asyncScheduler,
      timing: { ...defaultReflectorTiming, ...this.options.timing },
      queue: this.queue,
      metrics: this.options.metrics ?? noopStreamMetrics,
      logger: this.options.logger ?? silentLogger,
      random: this.options.random ?? Math.random,
    };
  }

  /** Every informer started so far has synced (readiness). */
  hasSynced(): boolean {
    return [...this.running.values()].every((informer) => informer.hasSynced());
  }

  stop(): void {
    for (const informer of [...this.running.values()]) informer.stop();
    this.warningFeed?.stop();
    this.queue.stop();
  }
}

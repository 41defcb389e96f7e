// The live engine: observations fed from the shared informers, decided by the verdict reducer,
// published on the bus.
//
// Routing is by index, never by letting every observation filter every event: a declared
// object's identity key names the observations waiting on it, and a pod or ReplicaSet reaches
// its workload through controller UIDs (OwnedObjectIndex). A watch event costs a map lookup
// unless some observation cares about it.
//
// Invariants:
// - one subscription per kind for the whole engine; the informer replays its cache on
//   subscription, so an object that existed before the first observation is still read;
// - a resource that left `pending` (settled or failed) is dropped from routing: never read again;
// - every decision is the reducer's; the engine only passes it events and the scheduler's clock,
//   so a verdict can be reconstructed from the record and the cluster;
// - budget and absence grace run on one timer per observation at the reducer's nextWakeAt:
//   nothing polls the API server;
// - a kind stagewatch may not list or watch fails, at once, every pending resource the
//   observation reads through it: no event can come to settle it while RBAC refuses it;
// - an observation is driven here only while this replica holds its lease (leaseKeeper); one
//   taken elsewhere, or decided through its record by another replica, is dropped at once;
// - the record is the journal: a step's events go out once a record holding them is stored, and
//   the verdict only from the replica whose terminal compare-and-swap won (verdictDelivery).
import { silentLogger, type Logger } from "../logging/index.js";
import { combineLatest, filter, map, merge, take, asyncScheduler, type SchedulerLike, type Subscription } from "rxjs";
import type { KubeObject, Pod, ReplicaSet } from "../kube/objects.js";
import type { ObservationRecords, ObservationService, ObserveResult, StoredRecord } from "../bus/index.js";
import { contentHash, newObservationId } from "../bus/index.js";
import { readsTheSame, type Informer, type PodLogReader, type ResourceMapping, type WarningSource, type WatchEvent } from "../streams/index.js";
import type { ClusterWarning } from "../kube/warnings.js";
import {
  advanceClock,
  budgetDeadline,
  cancelObservation,
  evaluateResource,
  groupKind,
  identityKey,
  isTerminal,
  labelledBootstrapKeys,
  markCachesSynced,
  newestWarning,
  nextWakeAt,
  objectIdentityKey,
  recordAccessProblem,
  recordDeletion,
  recordReading,
  stallNotice,
  startObservation,
  toVerdict,
  warningSlackMs,
  withWarning,
  type ObservationEvent,
  type ObservationRequest,
  type ObservationState,
  type ObservationStep,
  type ObservationVerdict,
  type OwnedObjects,
  type Rule,
} from "../verdicts/index.js";
import { controllerOf } from "../ownership/index.js";
import { OwnedObjectIndex } from "./ownedObjects.js";
import { RecordWriter } from "./recordWriter.js";
import type { LeaseKeeper } from "./leaseKeeper.js";
import type { AdoptingEngine } from "./adoption.js";
import type { AdoptionCause } from "./leasePolicy.js";
import { cancelThroughRecord, verdictEventOf } from "./recordedObservations.js";
import { takeOver, TakeOverError } from "./takeover.js";
import { acceptObservation } from "./acceptance.js";
import { VerdictDelivery } from "./verdictDelivery.js";
import { FailureLogs } from "./logTails.js";
import { RecentVerdicts } from "./recentVerdicts.js";
import { podOwningKinds, refusedResources } from "./refusals.js";
import { RoutingTable } from "./routingTable.js";
import { StallWatch } from "./stallWatch.js";
import { timerDelay } from "./timerDelay.js";
import { outsideWatchedNamespaces, resolveKinds } from "./requestChecks.js";
import { noopEngineMetrics, type EngineMetrics } from "./telemetry.js";

/** Where kinds and their informers come from: the InformerHub in the service, a fake in unit tests. */
export interface KindSource {
  resolve(apiVersion: string, kind: string): Promise<ResourceMapping>;
  informer(target: ResourceMapping): Informer;
  /** The namespaces watched; undefined for the whole cluster. */
  readonly namespaces: readonly string[] | undefined;
}

export interface EventSink {
  /** Stores the event on the bus; resolves when stored or given up on, never rejects. */
  publish(event: ObservationEvent): Promise<unknown>;
  /** Whether the observation's verdict is already on the bus (a crash may have come between deciding and publishing). */
  hasVerdict(deployment: string, observationId: string): Promise<boolean>;
  /** Drops the events of an observation still waiting to be sent: it went to another replica. */
  discard(observationId: string): void;
}

export interface ObservationEngineOptions {
  kinds: KindSource;
  events: EventSink;
  records: ObservationRecords;
  /** This replica's leases: one for each observation it drives. */
  leases: LeaseKeeper;
  /** The clock the reducer reads and the timers run on; a virtual-time scheduler in tests. */
  scheduler?: SchedulerLike;
  newObservationId?: () => string;
  metrics?: EngineMetrics;
  logger?: Logger;
  /** How many decided observations `get` answers from memory before falling back to the records. */
  decidedMemory?: number;
  /** CEL health checks of custom kinds by kind key (compileHealthChecks). */
  healthChecks?: ReadonlyMap<string, Rule>;
  /** Warning events shown in pending readings; none when undefined (`--warning-events=false`). */
  warnings?: WarningSource;
  /** Reads a failing container's log for requests with `logs: true`; absent: such requests get a note (serve --container-logs). */
  podLogs?: PodLogReader;
}

/** Owned objects routed up to their workload; by group too: a custom kind may be called `Pod`. */
const ownedKinds = new Set(["core/Pod", "apps/ReplicaSet"]);

interface LiveObservation {
  state: ObservationState;
  record: RecordWriter;
  /** The request's `logs`: a failure reads the failing container's log tail. */
  logs: boolean;
  /** The request's stallSeconds in ms; 0: no stall notices. */
  stallMs: number;
  /** Stall notices: armed once the observation is driven here (begin). */
  stall?: StallWatch;
  /** The decided verdict with its failure's log tail, once read: what the terminal write stores. */
  decided?: ObservationVerdict;
  /** Set when the terminal outcome is decided: resolves with the verdict that stands once stored. */
  delivery?: Promise<ObservationVerdict | undefined>;
  timer?: Subscription;
  wakeAt?: number;
  synced?: Subscription;
  access?: Subscription;
}

export class ObservationEngine implements ObservationService, AdoptingEngine {
  private readonly options: Required<Omit<ObservationEngineOptions, "decidedMemory" | "warnings" | "podLogs">> &
    Pick<ObservationEngineOptions, "warnings" | "podLogs"> & { decidedMemory: number };
  private readonly live = new Map<string, LiveObservation>();
  private readonly decided: RecentVerdicts;
  private readonly delivery: VerdictDelivery;
  private readonly failureLogs: FailureLogs;
  private readonly routes = new RoutingTable();
  private readonly owned = new OwnedObjectIndex();
  private readonly subscriptions = new Map<string, Subscription>();
  /** Verdicts decided here and not yet stored and published. */
  private readonly deliveries = new Set<Promise<unknown>>();

  constructor(options: ObservationEngineOptions) {
    this.options = {
      scheduler: asyncScheduler,
      newObservationId,
      metrics: noopEngineMetrics,
      logger: silentLogger,
      decidedMemory: 10_000,
      healthChecks: new Map(),
      ...options,
    };
    this.decided = new RecentVerdicts(this.options.decidedMemory);
    this.delivery = new VerdictDelivery({
      events: this.options.events,
      leases: this.options.leases,
      decided: this.decided,
      metrics: this.options.metrics,
      logger: this.options.logger,
      now: () => this.now(),
    });
    this.failureLogs = new FailureLogs({ reader: options.podLogs, kinds: this.options.kinds, logger: this.options.logger });
    this.options.leases.onLost((observationId) => this.leave(observationId));
  }

  private get replicaId(): string {
    return this.options.leases.replicaId;
  }

  /** Observations in progress. */
  get activeCount(): number {
    return this.live.size;
  }

  async observe(request: ObservationRequest): Promise<ObserveResult> {
    const mappings = await resolveKinds(this.options.kinds, request);
    if (!mappings.ok) return mappings.result;

    const nowMs = this.now();
    const observationId = this.options.newObservationId();
    const scopeByKind = new Map(mappings.value.map((m) => [m.kindKey, !m.namespaced]));
    const started = startObservation({
      observationId,
      request,
      startedAtMs: nowMs,
      deadlineMs: budgetDeadline(request, nowMs),
      isClusterScoped: (kind) => scopeByKind.get(kind) ?? false,
    });
    if (!started.ok) return { ok: false, code: "invalid_request", message: "invalid resources", issues: started.issues };
    const state = started.value;
    const outsideWatch = outsideWatchedNamespaces(this.options.kinds.namespaces, state);
    if (outsideWatch.length > 0) {
      return { ok: false, code: "invalid_request", message: "resources outside the watched namespaces", issues: outsideWatch };
    }

    const accepted = await acceptObservation(this.options.records, this.options.leases, request, contentHash(request), state);
    if (!accepted.accepted) return accepted.result;
    this.begin(this.liveOf(state, accepted.stored), mappings.value);
    return { ok: true, observationId, replay: false };
  }

  /**
   * Takes over an observation whose lease this replica just won: same id, same deadline, events on
   * the same subject. What the record holds as settled or failed stays so; pending resources are
   * read afresh. A record already decided only needs its verdict out; a lease without a record,
   * or a record whose key was never claimed, is what a crash during `observe` leaves behind.
   */
  async adopt(observationId: string, cause: AdoptionCause): Promise<void> {
    const { records, leases, logger } = this.options;
    const found = await takeOver(records, observationId, this.replicaId);
    const log = { observationId, replica: this.replicaId, cause };
    switch (found.found) {
      case "no record":
        logger.warn(log, "lease without a record (a crash during observe); removed");
        await leases.remove(observationId);
        return;
      case "unclaimed":
        logger.warn(log, "record whose key was never claimed (a crash during observe); removed");
        await records.deleteRecord(observationId);
        await leases.remove(observationId);
        return;
      case "decided":
        await this.delivery.publishRecorded(found.record);
        return;
      case "in progress": {
        const { record } = found;
        const mappings = await resolveKinds(this.options.kinds, record.request);
        if (!mappings.ok) throw new TakeOverError(`cannot resolve the kinds of observation ${observationId}: ${mappings.result.ok ? "" : mappings.result.message}`);
        if (!leases.holds(observationId) || this.live.has(observationId)) return;
        logger.info({ ...log, deployment: record.request.deployment, from: found.from, reached: record.verdict?.reached }, "observation adopted");
        this.begin(this.liveOf(found.state, { record, revision: found.revision }), mappings.value);
      }
    }
  }

  /**
   * Every observation driven here stops without a verdict and its lease is handed back, so another
   * replica adopts it at once (SIGTERM). Verdicts already decided are stored and published first.
   */
  async handOver(): Promise<void> {
    const ids = [...this.live.keys()];
    const writers = ids.map((id) => this.live.get(id)!.record);
    // Nothing new is read or decided; what was read is still stored (and its events published), so
    // the adopter resumes from the newest reading.
    for (const id of ids) this.drop(id, { keepWriting: true });
    await Promise.allSettled([...this.deliveries]);
    await Promise.allSettled(writers.map((writer) => writer.idle()));
    for (const writer of writers) writer.abandon();
    await Promise.allSettled(ids.map((id) => this.options.leases.release(id)));
  }

  async cancel(observationId: string, reason: string | undefined): Promise<ObservationVerdict | undefined> {
    const live = this.live.get(observationId);
    if (live) {
      this.apply(live, cancelObservation(live.state, reason, this.now()));
      return (await live.delivery) ?? this.get(observationId);
    }
    return this.cancelElsewhere(observationId, reason);
  }

  /**
   * A cancel for an observation another replica drives, or nobody does: decided through the
   * record. The driver learns of it from its lease being removed (the lease watch) and from its
   * next record write failing, and stops without a verdict of its own.
   */
  private async cancelElsewhere(observationId: string, reason: string | undefined): Promise<ObservationVerdict | undefined> {
    const stored = await this.options.records.getRecord(observationId);
    if (stored === undefined) return undefined;
    const cancelled = await cancelThroughRecord(this.options.records, stored, reason, this.now(), this.replicaId);
    if (cancelled === undefined) return stored.record.verdict;
    if (cancelled.decidedHere) {
      this.options.logger.info({ observationId, replica: this.replicaId, driver: stored.record.owner }, "cancelled through the record");
      this.decided.remember(cancelled.verdict);
      await this.publish(verdictEventOf(cancelled.verdict));
      await this.options.leases.removeWhoeverHolds(observationId);
    }
    return cancelled.verdict;
  }

  async get(observationId: string): Promise<ObservationVerdict | undefined> {
    // What is stored, not what is in memory: every replica answers the same, and nothing answered is lost by a crash.
    const live = this.live.get(observationId);
    if (live?.record.storedVerdict) return live.record.storedVerdict;
    const decided = this.decided.get(observationId);
    if (decided) return decided;
    return (await this.options.records.getRecord(observationId))?.record.verdict;
  }

  /** Ends every subscription and timer; observations in progress stay in the records, their leases expire. */
  stop(): void {
    for (const subscription of this.subscriptions.values()) subscription.unsubscribe();
    this.subscriptions.clear();
    for (const live of this.live.values()) this.stopDriving(live);
  }

  /** Builds what the engine keeps of an observation it drives, its record writer fenced by `stored`. */
  private liveOf(state: ObservationState, stored: StoredRecord): LiveObservation {
    const id = state.observationId;
    const { request } = stored.record;
    const live: Omit<LiveObservation, "record"> = { state, logs: request.logs === true, stallMs: request.stallSeconds * 1000 };
    const record = new RecordWriter({
      records: this.options.records,
      logger: this.options.logger,
      owner: this.replicaId,
      initial: stored,
      // The state as it stands when the write goes out: a step supersedes the state, so read it through `live`.
      content: () => ({ verdict: live.decided ?? toVerdict(live.state), labelledBootstrap: labelledBootstrapKeys(live.state) }),
      onSuperseded: (current) => void this.superseded(id, current),
      // Retries wait on the engine's clock: virtual time in tests.
      delay: (ms) => new Promise<void>((resolve) => this.options.scheduler.schedule(() => resolve(), ms)),
    });
    return Object.assign(live, { record });
  }

  /** Another replica wrote the record: it decided or adopted the observation. */
  private async superseded(observationId: string, current: StoredRecord | undefined): Promise<void> {
    this.options.logger.warn({ observationId, replica: this.replicaId, by: current?.record.owner }, "observation record changed elsewhere; no longer driving it");
    this.leave(observationId);
    await this.delivery.standDown(observationId, current);
  }

  /** The observation went elsewhere (lease lost, record superseded): stop without a verdict. */
  private leave(observationId: string): void {
    if (!this.live.has(observationId)) return;
    this.drop(observationId);
    this.options.events.discard(observationId);
    this.options.metrics.observationLeft();
  }

  private drop(observationId: string, { keepWriting = false } = {}): void {
    const live = this.live.get(observationId);
    if (!live) return;
    this.stopDriving(live);
    if (!keepWriting) live.record.abandon();
    for (const key of live.state.resources.keys()) this.routes.stopWaiting(key, observationId);
    this.live.delete(observationId);
  }

  private stopDriving(live: LiveObservation): void {
    live.stall?.stop();
    live.timer?.unsubscribe();
    live.synced?.unsubscribe();
    live.access?.unsubscribe();
  }

  private now(): number {
    return this.options.scheduler.now();
  }

  private begin(live: LiveObservation, mappings: readonly ResourceMapping[]): void {
    const id = live.state.observationId;
    this.live.set(id, live);
    // The request server logs the accepted request; the engine logs stages and the verdict.
    this.options.metrics.observationStarted();
    // An adopted observation whose deadline passed while nobody drove it times out now, with the
    // readings its record holds, before any informer could read it afresh.
    const wakeAt = nextWakeAt(live.state);
    if (wakeAt !== undefined && wakeAt <= this.now()) this.apply(live, advanceClock(live.state, this.now()));
    if (isTerminal(live.state.outcome)) return;
    live.stall = new StallWatch(live.stallMs, this.options.scheduler, (quietMs) =>
      this.guarded({ observationId: live.state.observationId }, () => this.announceStall(live, quietMs)),
    );
    this.followWarnings();
    const { state } = live;

    const needed = new Map<string, ResourceMapping>();
    [...state.resources.keys()].forEach((key, index) => {
      const mapping = mappings[index]!;
      const { identity } = state.resources.get(key)!;
      this.routes.wait(key, { mapping, namespace: identity.namespace, name: identity.name }, id);
      needed.set(mapping.kindKey, mapping);
    });
    void this.ensureOwnedKinds(live, needed).then((informers) => {
      this.whenRefused(live, informers);
      this.whenSynced(live, informers);
    });
    this.schedule(live);
  }

  /** Subscribes to the declared kinds, plus Pods and ReplicaSets when a workload needs them. */
  private async ensureOwnedKinds(live: LiveObservation, needed: Map<string, ResourceMapping>): Promise<Informer[]> {
    const kinds = [...live.state.resources.values()].map((r) => groupKind(r.identity.apiVersion, r.identity.kind));
    try {
      if (kinds.some((kind) => podOwningKinds.has(kind))) {
        const pods = await this.options.kinds.resolve("v1", "Pod");
        needed.set(pods.kindKey, pods);
      }
      if (kinds.includes("apps/Deployment")) {
        const replicaSets = await this.options.kinds.resolve("apps/v1", "ReplicaSet");
        needed.set(replicaSets.kindKey, replicaSets);
      }
    } catch (error) {
      this.options.logger.error({ observationId: live.state.observationId, err: error }, "cannot resolve Pod or ReplicaSet");
    }
    return [...needed.values()].map((mapping) => this.subscribe(mapping));
  }

  private subscribe(mapping: ResourceMapping): Informer {
    const informer = this.options.kinds.informer(mapping);
    if (!this.subscriptions.has(mapping.kindKey)) {
      this.subscriptions.set(mapping.kindKey, informer.events$.subscribe((event) => this.handle(event)));
    }
    return informer;
  }

  /** The one subscription to Warning events, made with the first observation. */
  private followWarnings(): void {
    const { warnings } = this.options;
    if (!warnings || this.subscriptions.has("core/Event")) return;
    this.subscriptions.set(
      "core/Event",
      warnings.warnings$.subscribe((warning) =>
        this.guarded({ kind: "core/Event", reason: warning.reason }, () => this.routeWarning(warning, performance.now())),
      ),
    );
  }

  /**
   * A warning reaches the observations reading its object: a pod or ReplicaSet through the
   * workload it answers to (by UID, as its watch events are), a declared object by the identity
   * the event's involvedObject names (and its UID). That object is then read again, the warning
   * with it.
   */
  private routeWarning(warning: ClusterWarning, receivedAt: number): void {
    const { uid, apiVersion, kind, namespace, name } = warning.involved;
    const owned = this.owned.byUid(kind, uid);
    if (owned) this.readWorkload(this.owned.workloadUidOf(owned), receivedAt);
    // A bare ReplicaSet or pod may be declared itself as well as indexed.
    if (apiVersion === undefined) return;
    const key = identityKey({ apiVersion, kind, namespace, name });
    const observers = this.routes.observersOf(key);
    const object = observers && this.objectOf(key);
    if (observers && object?.metadata.uid === uid) this.read(key, object, observers, receivedAt);
  }

  /** Once every informer the observation reads has listed: start the absence grace, read the cache. */
  private whenSynced(live: LiveObservation, informers: readonly Informer[]): void {
    if (isTerminal(live.state.outcome)) return;
    live.synced = combineLatest(informers.map((informer) => informer.synced$))
      .pipe(
        filter((flags) => flags.every(Boolean)),
        take(1),
      )
      .subscribe(() =>
        this.guarded({ observationId: live.state.observationId }, () => {
          if (isTerminal(live.state.outcome)) return;
          this.apply(live, markCachesSynced(live.state, this.now()));
          for (const key of live.state.resources.keys()) {
            const object = this.objectOf(key);
            if (object) this.read(key, object, [live.state.observationId]);
          }
        }),
      );
  }

  /** Whenever an informer the observation reads is refused access: fail what it reads through it. */
  private whenRefused(live: LiveObservation, informers: readonly Informer[]): void {
    if (isTerminal(live.state.outcome)) return;
    const id = live.state.observationId;
    const problems = merge(...informers.map(({ mapping, problems$ }) => problems$.pipe(map((problems) => ({ mapping, problems })))));
    // The informers replay their current problems on subscription, which may decide the
    // observation before `subscribe` returns: the subscription is kept only if it still matters.
    const subscription = problems.subscribe(({ mapping, problems }) =>
      this.guarded({ observationId: id, kind: mapping.kindKey }, () => {
        for (const { key, problem } of refusedResources(live.state, mapping, problems)) {
          if (isTerminal(live.state.outcome)) return;
          this.apply(live, recordAccessProblem(live.state, key, problem, this.now()));
        }
      }),
    );
    if (isTerminal(live.state.outcome)) subscription.unsubscribe();
    else live.access = subscription;
  }

  private objectOf(key: string): KubeObject | undefined {
    const target = this.routes.targetOf(key);
    if (!target) return undefined;
    return this.options.kinds.informer(target.mapping).get(target.namespace, target.name);
  }

  private handle(event: WatchEvent): void {
    const receivedAt = performance.now();
    this.guarded({ kind: event.object.kind, type: event.type }, () => {
      const { object } = event;
      if (ownedKinds.has(groupKind(object.apiVersion, object.kind))) this.routeToOwner(event, receivedAt);
      this.routeDeclared(event, receivedAt);
    });
  }

  /** A rule or reducer bug must not end a shared subscription or a timer for every observation. */
  private guarded(context: object, work: () => void): void {
    try {
      work();
    } catch (error) {
      this.options.logger.error({ ...context, err: error }, "observation step failed");
    }
  }

  private routeDeclared({ type, object }: WatchEvent, receivedAt: number): void {
    const key = objectIdentityKey(object);
    // A ReplicaSet is a workload of its own only when bare: a Deployment's are reached through it.
    if (podOwningKinds.has(groupKind(object.apiVersion, object.kind)) && !(object.kind === "ReplicaSet" && controllerOf(object))) {
      this.routes.noteWorkload(object.metadata.uid, key, type !== "deleted");
    }
    const observers = this.routes.observersOf(key);
    if (!observers) return;
    if (type === "deleted") {
      for (const id of observers) {
        const live = this.live.get(id);
        if (live) this.apply(live, recordDeletion(live.state, key, object.metadata.uid, this.now()), receivedAt);
      }
      return;
    }
    this.read(key, object, observers, receivedAt);
  }

  private routeToOwner({ type, object }: WatchEvent, receivedAt: number): void {
    // The owner is looked up before a deleted ReplicaSet leaves the index.
    const workloadUid = this.owned.workloadUidOf(object);
    const previous = type === "modified" ? this.owned.byUid(object.kind, object.metadata.uid) : undefined;
    if (object.kind === "Pod") this.owned.applyPod(type, object as Pod);
    else this.owned.applyReplicaSet(type, object as ReplicaSet);
    // Re-sent as it was to the rules (a relist after a gap, a status write of fields the strip
    // drops): no reading can change, so the workload is not judged again.
    if (previous !== undefined && readsTheSame(previous, object)) return;
    this.readWorkload(workloadUid, receivedAt);
  }

  /** The workload an owned object answers to is read again for whoever waits on it. */
  private readWorkload(workloadUid: string | undefined, receivedAt: number): void {
    if (workloadUid === undefined) return;
    const key = this.routes.workloadKey(workloadUid);
    const observers = key === undefined ? undefined : this.routes.observersOf(key);
    if (key === undefined || !observers) return;
    const workload = this.objectOf(key);
    if (workload?.metadata.uid === workloadUid) this.read(key, workload, observers, receivedAt);
  }

  /** Evaluates a declared object for the observations named, each with its own failOn and generation. */
  private read(key: string, object: KubeObject, observationIds: readonly string[], receivedAt?: number): void {
    const kind = groupKind(object.apiVersion, object.kind);
    const owned = podOwningKinds.has(kind) ? this.owned.ownedBy(object) : undefined;
    const warnings = this.warningsAbout(object, owned);
    for (const id of observationIds) {
      const live = this.live.get(id);
      const resource = live?.state.resources.get(key);
      if (!live || !resource || resource.reading.state !== "pending") continue;
      const evaluated = evaluateResource({
        object,
        ...(owned && { owned }),
        requestedGeneration: resource.identity.generation,
        failOn: live.state.failOn,
        healthChecks: this.options.healthChecks,
      });
      const warning = newestWarning(warnings, live.state.startedAtMs - warningSlackMs);
      const reading = withWarning(evaluated, warning, live.state.failOn);
      const observed = { uid: object.metadata.uid, generation: object.metadata.generation, labels: object.metadata.labels, reading };
      this.apply(live, recordReading(live.state, key, observed, this.now()), receivedAt);
    }
  }

  /** The newest warning about the object and about each ReplicaSet and pod it owns. */
  private warningsAbout(object: KubeObject, owned: OwnedObjects | undefined): (ClusterWarning | undefined)[] {
    const { warnings } = this.options;
    if (!warnings) return [];
    const about = [warnings.newest(object.metadata.uid)];
    for (const child of owned?.replicaSets ?? []) about.push(warnings.newest(child.metadata.uid));
    for (const child of owned?.pods ?? []) about.push(warnings.newest(child.metadata.uid));
    return about;
  }

  private apply(live: LiveObservation, step: ObservationStep, receivedAt?: number): void {
    const changed = step.state !== live.state;
    live.state = step.state;
    const { observationId, deployment } = live.state;
    const at = new Date(this.now()).toISOString();
    const events: ObservationEvent[] = [];
    let verdict: ObservationVerdict | undefined;
    for (const change of step.changes) {
      switch (change.type) {
        case "resource":
          if (change.resource.state !== "pending") this.routes.stopWaiting(change.key, observationId);
          events.push({ type: "progress", observationId, deployment, at, resource: change.resource });
          break;
        case "stage":
          this.options.metrics.stageReached(change.stage, deployment, (this.now() - live.state.startedAtMs) / 1000);
          this.options.logger.info({ observationId, deployment, stage: change.stage }, "stage reached");
          events.push({ type: "stage", observationId, deployment, at, stage: change.stage });
          break;
        case "verdict":
          verdict = change.verdict;
          break;
      }
    }
    if (verdict) {
      this.finish(live, verdict, events, receivedAt);
      return;
    }
    if (changed) {
      if (step.progressed) live.stall?.moved();
      // The record follows every reading (coalesced by the writer), so an adopter resumes from the
      // newest one; the step's events go out once a record holding them is stored.
      const stored = live.record.update();
      if (events.length > 0) void stored.then((ok) => ok && events.forEach((event) => this.publish(event)));
    }
    this.schedule(live);
  }

  private finish(live: LiveObservation, verdict: ObservationVerdict, events: readonly ObservationEvent[], receivedAt: number | undefined): void {
    const id = live.state.observationId;
    this.stopDriving(live);
    for (const key of live.state.resources.keys()) this.routes.stopWaiting(key, id);
    this.live.delete(id);
    // The failing container's log tail, when asked for, is read before the terminal write (logTails:
    // bounded, never failing), so what is stored is what is published.
    const wanted = this.failureLogs.wanted(live.logs, verdict);
    if (wanted) live.record.hold();
    const detailed = wanted ? this.failureLogs.attach(id, verdict) : Promise.resolve(verdict);
    // Exactly one verdict: stored first, published only by the replica whose terminal write won (verdictDelivery).
    const delivery = detailed.then((decided) => {
      live.decided = decided;
      return live.record.decide().then((stored) => this.delivery.deliver({ state: live.state, verdict: decided, events, receivedAt }, stored));
    });
    live.delivery = delivery;
    this.deliveries.add(delivery);
    void delivery.finally(() => this.deliveries.delete(delivery));
  }

  private publish(event: ObservationEvent): Promise<unknown> {
    return this.options.events.publish(event);
  }

  /** One `stalled` notice naming what the observation waits on (StallWatch decides when). */
  private announceStall(live: LiveObservation, quietMs: number): void {
    const { observationId, deployment } = live.state;
    if (this.live.get(observationId) !== live) return;
    const notice = stallNotice(live.state, quietMs);
    this.options.logger.info({ observationId, deployment, quietSeconds: quietMs / 1000, waitingFor: notice.waitingFor.length }, "stalled");
    void this.publish({ type: "stalled", observationId, deployment, at: new Date(this.now()).toISOString(), sinceSeconds: quietMs / 1000, ...notice });
  }

  private schedule(live: LiveObservation): void {
    const wakeAt = nextWakeAt(live.state);
    if (wakeAt === live.wakeAt) return;
    live.timer?.unsubscribe();
    live.wakeAt = wakeAt;
    if (wakeAt === undefined) return;
    live.timer = this.options.scheduler.schedule(() => {
      live.wakeAt = undefined;
      if (!this.live.has(live.state.observationId)) return;
      this.guarded({ observationId: live.state.observationId }, () => this.apply(live, advanceClock(live.state, this.now())));
    }, timerDelay(wakeAt, this.now()));
  }
}

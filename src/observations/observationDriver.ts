// Drives the observations this replica holds, from the moment they begin here to their verdict
// or their leaving: routed objects are read into the reducer, each step is applied, its events go
// out once a record holding them is stored, and the verdict is delivered exactly once.
//
// Invariants:
// - every decision is the reducer's; the driver only passes it readings and the scheduler's clock,
//   so a verdict can be reconstructed from the record and the cluster;
// - a resource that left `pending` (settled or failed) is dropped from routing: never read again;
// - budget and absence grace run on one timer per observation at the reducer's nextWakeAt:
//   nothing polls the API server;
// - a kind stagewatch may not list or watch fails, at once, every pending resource the
//   observation reads through it: no event can come to settle it while RBAC refuses it;
// - the record is the journal: a step's events go out once a record holding them is stored, and
//   the verdict only from the replica whose terminal compare-and-swap won (verdictDelivery).
import {
  advanceClock,
  awaitingOwnedObjects,
  autoStallQuantile,
  describeResource,
  minAutoStallSeconds,
  evaluateResource,
  expectationOf,
  formatDuration,
  formatRolloutTime,
  markCachesSynced,
  nextWakeAt,
  newestWarning,
  noteNotice,
  noteResource,
  noteStage,
  recordAccessProblem,
  recordDeletion,
  recordReading,
  recordSoakReading,
  recordMeasurement,
  nextMeasurements,
  stallNotice,
  warningSlackMs,
  withAutoscalerWord,
  withWarning,
  type ObservationEvent,
  type ObservationStep,
  type ObservationVerdict,
  type StalledEvent,
} from "../verdicts/index.js";
import { routedOwnedKinds } from "../kube/kindFacts.js";
import type { InformerProblem, ResourceMapping } from "../streams/index.js";
import { EventRouter, type DeletedObject, type ObjectToRead } from "./routing/eventRouter.js";
import { guarded } from "./guarded.js";
import { allSynced, mappingsRead } from "./routing/informerWiring.js";
import type { LiveObservation } from "./liveObservation.js";
import type { StageOverrun } from "./timers/stageOverrunWatch.js";
import { FailureLogs } from "./logTails/logTails.js";
import type { EngineSettings } from "./engineSettings.js";
import { readsThrough, refusedResources } from "./routing/refusals.js";
import type { VerdictDelivery } from "./delivery/verdictDelivery.js";

export class ObservationDriver {
  private readonly settings: EngineSettings;
  private readonly delivery: VerdictDelivery;
  private readonly live = new Map<string, LiveObservation>();
  private readonly router: EventRouter;
  private readonly failureLogs: FailureLogs;
  /** Verdicts decided here and not yet stored and published. */
  private readonly deliveries = new Set<Promise<unknown>>();

  constructor(settings: EngineSettings, delivery: VerdictDelivery) {
    this.settings = settings;
    this.delivery = delivery;
    this.router = new EventRouter({
      kinds: settings.kinds,
      warnings: settings.warnings,
      logger: settings.logger,
      onRead: (read) => this.read(read),
      onDeleted: (deleted) => this.deleted(deleted),
      onRefused: (mapping, problems) => {
        for (const live of this.live.values()) this.refuse(live, mapping, problems);
      },
    });
    this.failureLogs = new FailureLogs({ reader: settings.podLogs, kinds: settings.kinds, logger: settings.logger, maxConcurrentReads: settings.maxLogReads });
  }

  get size(): number {
    return this.live.size;
  }

  /** The observation driven here under `observationId`, while it is. */
  driven(observationId: string): LiveObservation | undefined {
    return this.live.get(observationId);
  }

  ids(): string[] {
    return [...this.live.keys()];
  }

  /** Starts driving `live`, whose declared resources resolve to `mappings` (request order). */
  begin(live: LiveObservation, mappings: readonly ResourceMapping[]): void {
    this.live.set(live.id, live);
    // The request server logs the accepted request; the driver logs stages and the verdict.
    this.settings.metrics.observationStarted();
    // An adopted observation whose deadline passed while nobody drove it times out now, with the
    // readings its record holds, before any informer could read it afresh.
    const wakeAt = nextWakeAt(live.state);
    if (wakeAt !== undefined && wakeAt <= this.now()) this.apply(live, advanceClock(live.state, this.now()));
    if (!live.driving) return;
    live.watchForStalls(
      (quietMs) => guarded(this.settings.logger, { observationId: live.id }, () => this.announceStall(live, quietMs)),
      (overrun) => guarded(this.settings.logger, { observationId: live.id }, () => this.announceOverrun(live, overrun)),
    );
    this.router.followWarnings();
    [...live.state.resources].forEach(([key, { identity }], index) => {
      this.router.wait(key, { mapping: mappings[index]!, namespace: identity.namespace, name: identity.name }, live.id);
    });
    void mappingsRead(this.settings.kinds, live.state, mappings, this.settings.logger).then((read) => {
      // Asked at each read, not told, and known before subscribing: a warm informer replays its
      // cache before subscribe returns, and says it has listed before its synced news comes in turn.
      const owned = read.filter(({ kindKey }) => routedOwnedKinds.has(kindKey)).map((mapping) => this.settings.kinds.informer(mapping));
      live.ownedListed = (kind) => owned.every((informer) => !readsThrough(kind, informer.mapping.kindKey) || informer.hasSynced());
      const informers = this.router.subscribe(read);
      // The kinds' refusals as they stand (a later change reaches every observation through the
      // router's one subscription per kind); they may decide the observation here, and `keep`
      // ends a subscription that no longer matters.
      for (const informer of informers) this.refuse(live, informer.mapping, this.router.problemsOf(informer.mapping.kindKey));
      live.keep(
        allSynced(owned).subscribe(() =>
          guarded(this.settings.logger, { observationId: live.id }, () => {
            if (live.driving) this.router.readCached(live.state.resources.keys(), live.id);
          }),
        ),
      );
      live.keep(
        allSynced(informers).subscribe(() =>
          guarded(this.settings.logger, { observationId: live.id }, () => {
            if (!live.driving) return;
            this.apply(live, markCachesSynced(live.state, this.now()));
            this.router.readCached(live.state.resources.keys(), live.id);
          }),
        ),
      );
    });
    this.schedule(live);
  }

  /** What `problems` of the informer of `mapping` leave `live` unable to read fails (reducer: if still pending). */
  private refuse(live: LiveObservation, mapping: ResourceMapping, problems: readonly InformerProblem[]): void {
    if (problems.length === 0 || !live.driving) return;
    guarded(this.settings.logger, { observationId: live.id, kind: mapping.kindKey }, () => {
      for (const { key, problem } of refusedResources(live.state, mapping, problems)) {
        if (!live.driving) return;
        this.apply(live, recordAccessProblem(live.state, key, problem, this.now()));
      }
    });
  }

  /** Stops driving without a verdict (the observation went elsewhere); `keepWriting`: what was read is still stored (hand-over). */
  drop(observationId: string, { keepWriting = false } = {}): void {
    const live = this.live.get(observationId);
    if (!live) return;
    live.stopDriving("left");
    if (keepWriting) live.record.flushLater();
    else live.record.abandon();
    this.forget(live);
  }

  /** Resolves when every verdict decided here so far was stored and published (or stood down). */
  async delivered(): Promise<void> {
    await Promise.allSettled([...this.deliveries]);
  }

  /** Ends every subscription and timer; observations in progress stay in the records, their leases expire. */
  stop(): void {
    this.router.stop();
    for (const live of this.live.values()) {
      live.stopDriving("left");
      live.record.cancelLater();
    }
  }

  apply(live: LiveObservation, step: ObservationStep, receivedAt?: number): void {
    const changed = step.state !== live.state;
    const windowWasOpen = live.state.window !== undefined;
    live.state = step.state;
    const { observationId, deployment, tenant } = live.state;
    const envelope = { observationId, deployment, ...(tenant !== undefined && { tenant }) };
    const nowMs = this.now();
    const at = new Date(nowMs).toISOString();
    const events: ObservationEvent[] = [];
    const expectation = expectationOf(live.state.outlook, live.state.required);
    let verdict: ObservationVerdict | undefined;
    for (const change of step.changes) {
      switch (change.type) {
        case "resource":
          // Under `require: verified` a settled workload is read on through the verification window.
          if (change.resource.state === "failed" || (change.resource.state === "settled" && !live.state.verify)) this.router.stopWaiting(change.key, observationId);
          noteResource(live.timeline, change.key, change.resource.state, nowMs);
          events.push({ type: "progress", ...envelope, at, resource: change.resource, ...(expectation && { expectation }) });
          break;
        case "stage":
          noteStage(live.timeline, change.stage, nowMs);
          live.stageChanged();
          this.settings.metrics.stageReached(change.stage, deployment, tenant, (nowMs - live.state.startedAtMs) / 1000);
          this.settings.logger.info({ observationId, deployment, stage: change.stage }, "stage reached");
          events.push({ type: "stage", ...envelope, at, stage: change.stage });
          break;
        case "measurement":
          events.push({ type: "progress", ...envelope, at, resource: change.resource, ...(expectation && { expectation }), verification: change.verification });
          break;
        case "verdict":
          verdict = change.verdict;
          break;
      }
    }
    if (verdict) {
      this.decide(live, verdict, events, receivedAt);
      return;
    }
    const windowOpened = live.state.window !== undefined && !windowWasOpen;
    if (changed) {
      if (step.progressed) live.moved();
      // The record follows what a client can see at once (a change that publishes an event), and the
      // step's events go out once a record holding them is stored; a pending message alone (counts,
      // a warning repeating) is written within the writer's quiet interval.
      if (events.length === 0) live.record.updateLater();
      else void live.record.update().then((ok) => ok && events.forEach((event) => void this.settings.events.publish(event)));
    }
    this.schedule(live);
    // The window's first reading: the pods as the caches hold them when `healthy` was reached.
    if (windowOpened) this.router.readCached(live.state.resources.keys(), live.id);
    this.scheduleMeasurements(live);
  }

  /** The window's next measurements, on the engine's clock; each answer is a reducer step like a reading. */
  private scheduleMeasurements(live: LiveObservation): void {
    const { analyses } = this.settings;
    if (!analyses || !live.state.window) return;
    const { observationId, deployment } = live.state;
    live.scheduleMeasurements(
      nextMeasurements(live.state),
      (query) => analyses.measure(query).catch((error: unknown) => ({ inconclusive: `the query failed: ${error instanceof Error ? error.message : String(error)}` })),
      (name, measured) =>
        guarded(this.settings.logger, { observationId, analysis: name }, () => {
          this.settings.logger.info({ observationId, deployment, analysis: name, ...measured }, "measured");
          this.apply(live, recordMeasurement(live.state, name, measured, this.now()));
        }),
    );
  }

  private schedule(live: LiveObservation): void {
    live.schedule(() => guarded(this.settings.logger, { observationId: live.id }, () => this.apply(live, advanceClock(live.state, this.now()))));
  }

  /** Evaluates a routed object for the observations named, each with its own failOn and generation. */
  private read({ key, object, owned, warnings, autoscalerWords, observers, receivedAt }: ObjectToRead): void {
    for (const id of observers) {
      const live = this.live.get(id);
      const resource = live?.state.resources.get(key);
      if (!live?.driving || !resource) continue;
      if (resource.reading.state === "settled" && live.state.window) {
        this.apply(live, recordSoakReading(live.state, key, { object, owned, warnings }, this.now()), receivedAt);
        continue;
      }
      if (resource.reading.state !== "pending") continue;
      const evaluated = evaluateResource({
        object,
        ...(owned && { owned }),
        requestedGeneration: resource.identity.generation,
        failOn: live.state.failOn,
        graced: live.state.graced,
        scaled: resource.scaled,
        healthChecks: this.settings.healthChecks,
      });
      const since = live.state.startedAtMs - warningSlackMs;
      const warned = withWarning(evaluated, newestWarning(warnings, since), live.state.failOn);
      const reading = awaitingOwnedObjects(resource.identity, withAutoscalerWord(warned, newestWarning(autoscalerWords, since), live.state.failOn), live.ownedListed);
      const observed = { uid: object.metadata.uid, generation: object.metadata.generation, labels: object.metadata.labels, reading };
      this.apply(live, recordReading(live.state, key, observed, this.now()), receivedAt);
    }
  }

  private deleted({ key, uid, observers, receivedAt }: DeletedObject): void {
    for (const id of observers) {
      const live = this.live.get(id);
      if (live?.driving) this.apply(live, recordDeletion(live.state, key, uid, this.now()), receivedAt);
    }
  }

  private decide(live: LiveObservation, verdict: ObservationVerdict, events: readonly ObservationEvent[], receivedAt: number | undefined): void {
    live.stopDriving("deciding");
    this.forget(live);
    // The failing container's log tail, when asked for, is read before the terminal write (logTails:
    // bounded, never failing), so what is stored is what is published.
    const wanted = this.failureLogs.wanted(live.logs, verdict);
    if (wanted) live.record.hold();
    const detailed = wanted ? this.failureLogs.attach(live.id, verdict) : Promise.resolve(verdict);
    // Exactly one verdict: stored first, published only by the replica whose terminal write won (verdictDelivery).
    const delivery = detailed.then((complete) => {
      const decided = (live.decided = this.settings.signer.signVerdict(complete));
      // What is published is what was stored: the record writer may have compacted it to fit max_payload.
      return live.record
        .decide()
        .then((stored) =>
          this.delivery.deliver({ state: live.state, verdict: (stored.stored && live.record.storedVerdict) || decided, events, receivedAt, request: live.request, timeline: live.timeline }, stored),
        );
    });
    live.delivery = delivery;
    this.deliveries.add(delivery);
    void delivery.finally(() => this.deliveries.delete(delivery));
  }

  /** One `stalled` notice naming what the observation waits on (StallWatch decides when). */
  private announceStall(live: LiveObservation, quietMs: number): void {
    // Nothing moving in the verification window is what is hoped for, not a stall.
    if (!live.driving || live.state.window) return;
    const { observationId, deployment } = live.state;
    const notice = stallNotice(live.state, quietMs);
    this.settings.logger.info({ observationId, deployment, quietSeconds: quietMs / 1000, waitingFor: notice.waitingFor.length }, "stalled");
    this.publishStall(live, quietMs, notice);
  }

  /** `--stall auto`: the stage waited for is taking longer than nearly all earlier rollouts took to reach it. */
  private announceOverrun(live: LiveObservation, { stage, elapsedMs, estimate, thresholdSeconds }: StageOverrun): void {
    if (!live.driving) return;
    const { observationId, deployment } = live.state;
    const quantile = `${Math.round(autoStallQuantile * 100)}%`;
    const notice = stallNotice(live.state, elapsedMs);
    const message =
      `deployment ${deployment} has taken ${formatDuration(elapsedMs)} and has not reached ${stage}: ` +
      `${quantile} of ${estimate.samples} earlier rollouts reached it within ${formatRolloutTime(estimate.p95Seconds)} ` +
      `(stall auto: the ${quantile} quantile of their times to ${stage}, at least ${formatDuration(minAutoStallSeconds * 1000)}); waiting for: ${notice.waitingFor.map((r) => `${describeResource(r.identity)}: ${r.message ?? ""}`).join("; ") || "nothing pending"}`;
    const basis = { stage, quantile: autoStallQuantile, thresholdSeconds, samples: estimate.samples };
    this.settings.logger.info({ observationId, deployment, elapsedSeconds: elapsedMs / 1000, ...basis }, "stalled (auto)");
    this.publishStall(live, elapsedMs, { waitingFor: notice.waitingFor, message, basis });
  }

  /** A stall notice into the timeline (traces, the record) and out on the observation's subject. */
  private publishStall(live: LiveObservation, sinceMs: number, notice: Pick<StalledEvent, "waitingFor" | "message" | "basis">): void {
    const { observationId, deployment, tenant } = live.state;
    noteNotice(live.timeline, { type: "stalled", atMs: this.now(), message: notice.message });
    void live.record.update();
    void this.settings.events.publish({
      type: "stalled",
      observationId,
      deployment,
      ...(tenant !== undefined && { tenant }),
      at: new Date(this.now()).toISOString(),
      sinceSeconds: sinceMs / 1000,
      ...notice,
    });
  }

  /** No longer driven here: out of the map and out of routing. */
  private forget(live: LiveObservation): void {
    for (const key of live.state.resources.keys()) this.router.stopWaiting(key, live.id);
    this.live.delete(live.id);
    live.release();
  }

  private now(): number {
    return this.settings.scheduler.now();
  }
}

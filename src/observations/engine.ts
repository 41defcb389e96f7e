// The live engine as the bus sees it: observe, adopt, get, cancel, hand over and stop. The
// observations themselves are driven by ObservationDriver (readings, steps, timers, the verdict);
// this façade keeps the protocol of the records and leases around them:
// - an observation is driven here only while this replica holds its lease (leaseKeeper); one
//   taken elsewhere, or decided through its record by another replica, leaves at once;
// - `get`, `cancel` and a replayed `observe` answer from what is stored, so every replica gives
//   the same answers and nothing answered is lost by a crash;
// - a caller sees, replays and cancels only its tenant's observations (an admin every one); any
//   other is answered as missing, never as forbidden, so ids cannot be probed.
import type { ObservationService, ObserveResult, StoredRecord } from "../bus/index.js";
import { contentHash, isStoreFull } from "../bus/index.js";
import type { ResourceMapping } from "../streams/index.js";
import { forbiddenParts, maySee, soleCaller, type Caller } from "../tenants/index.js";
import {
  budgetDeadline,
  cancelObservation,
  deadlineTooFar,
  emptyTimeline,
  loosenedIssues,
  noteNotice,
  outlookOf,
  startObservation,
  type HistoryOutlook,
  type ObservationRequest,
  type ObservationState,
  type ObservationVerdict,
} from "../verdicts/index.js";
import { acceptObservation } from "./leases/acceptance.js";
import { Admission, type Refusal, type Release } from "./admission/admission.js";
import { payloadReserveBytes } from "./records/recordCompaction.js";
import { QuietWrites } from "./records/quietWrites.js";
import type { AdoptingEngine } from "./leases/adoption.js";
import type { AdoptionCause } from "./leases/leasePolicy.js";
import { LiveObservation } from "./liveObservation.js";
import { ObservationDriver } from "./observationDriver.js";
import { engineSettings, type EngineSettings } from "./engineSettings.js";
import type { ObservationEngineOptions } from "./ports.js";
import { RecentVerdicts } from "./delivery/recentVerdicts.js";
import { cancelThroughRecord, verdictEventOf } from "./records/recordedObservations.js";
import { outsideWatchedNamespaces, resolveKinds } from "./admission/requestChecks.js";
import { takeOver, TakeOverError } from "./leases/takeover.js";
import { VerdictDelivery } from "./delivery/verdictDelivery.js";

export class ObservationEngine implements ObservationService, AdoptingEngine {
  private readonly settings: EngineSettings;
  private readonly decided: RecentVerdicts;
  private readonly delivery: VerdictDelivery;
  private readonly driver: ObservationDriver;
  private readonly admission: Admission;
  private readonly maxRecordBytes: number;
  private readonly quietWrites: QuietWrites;

  constructor(options: ObservationEngineOptions) {
    const settings = (this.settings = engineSettings(options));
    this.admission = new Admission(settings.admissionLimits);
    this.maxRecordBytes = settings.maxPayloadBytes - payloadReserveBytes;
    this.decided = new RecentVerdicts(settings.decidedMemory);
    this.delivery = new VerdictDelivery({ ...settings, decided: this.decided, now: () => settings.scheduler.now() });
    this.driver = new ObservationDriver(settings, this.delivery);
    this.quietWrites = new QuietWrites(settings.scheduler);
    settings.leases.onLost((observationId) => this.leave(observationId));
  }

  /** Observations counted in flight by admission (driven here, or being accepted). */
  get admittedCount(): number {
    return this.admission.inFlight;
  }

  /** Observations in progress. */
  get activeCount(): number {
    return this.driver.size;
  }

  /**
   * `caller`: who asked (the bus identified it; without a tenants file the sole caller), admitted
   * under its tenant's quotas before anything is looked up or stored.
   */
  async observe(request: ObservationRequest, caller: Caller = soleCaller): Promise<ObserveResult> {
    const nowMs = this.now();
    const tooFar = deadlineTooFar(request, nowMs);
    if (tooFar) return { ok: false, code: "invalid_request", message: `invalid observation request: deadline: ${tooFar}`, issues: [{ path: "deadline", message: tooFar }] };
    const admitted = this.admission.admit(caller);
    if (!admitted.ok) return this.refused(request, caller, admitted.refusal);
    let begun = false;
    try {
      const result = await this.accept(request, caller, nowMs, admitted.release);
      begun = result.ok && !result.replay;
      return result;
    } catch (error) {
      // The records or leases bucket at its max_bytes: a limit like the others, retryable once keys expire.
      if (!isStoreFull(error)) throw error;
      const message = "the service's JetStream storage (records or leases bucket) is at its max_bytes; retry later";
      return { ok: false, code: "quota", message, issues: [{ path: "(request)", message }] };
    } finally {
      if (!begun) admitted.release();
    }
  }

  /**
   * A request past a limit. One in flight already (a client sending its request again, after a
   * lost reply) is still answered with its observation: what is full is new work, not answers.
   */
  private async refused(request: ObservationRequest, caller: Caller, refusal: Refusal): Promise<ObserveResult> {
    const claim = await this.settings.records.getClaim(request.key, caller.tenant);
    if (claim && claim.contentHash === contentHash(request)) return { ok: true, observationId: claim.observationId, replay: true };
    return { ok: false, code: "quota", message: refusal.message, issues: [{ path: "(request)", message: refusal.message }] };
  }

  private async accept(asked: ObservationRequest, caller: Caller, nowMs: number, release: Release): Promise<ObserveResult> {
    const serviceFailOn = this.settings.failOn;
    const loosened = serviceFailOn && asked.failOn ? loosenedIssues(asked.failOn, serviceFailOn) : [];
    if (loosened.length > 0) return { ok: false, code: "invalid_request", message: "failOn looser than the service allows", issues: loosened };
    // The record keeps the failOn the observation runs with, so an adopter with another
    // configuration decides the same; the key's hash stays the request's own (contentHash(asked)).
    const request = serviceFailOn && !asked.failOn ? { ...asked, failOn: [...serviceFailOn] } : asked;
    const mappings = await resolveKinds(this.settings.kinds, request);
    if (!mappings.ok) return mappings.result;

    const observationId = this.settings.newObservationId();
    const scopeByKind = new Map(mappings.value.map((m) => [m.kindKey, !m.namespaced]));
    const outlook = await this.outlookOf(request.deployment, caller.tenant);
    const started = startObservation({
      observationId,
      request,
      ...(outlook && { outlook }),
      startedAtMs: nowMs,
      deadlineMs: budgetDeadline(request, nowMs),
      isClusterScoped: (kind) => scopeByKind.get(kind) ?? false,
      tenant: caller.tenant,
      ...(this.settings.analyses && { analysisTemplates: this.settings.analyses.templates }),
    });
    if (!started.ok) return { ok: false, code: "invalid_request", message: "invalid resources", issues: started.issues };
    const state = started.value;
    // Checked on the namespaces as resolved (defaultNamespace applied) and the scopes discovery
    // gave: what the informers would read, not what the request happened to spell out.
    const forbidden = forbiddenParts(caller, [...state.resources.values()].map((r) => r.identity), request.logs === true);
    if (forbidden.length > 0) {
      return { ok: false, code: "forbidden", message: `outside what tenant ${caller.id} may observe`, issues: forbidden };
    }
    const outsideWatch = outsideWatchedNamespaces(this.settings.kinds, state);
    if (outsideWatch.length > 0) {
      return { ok: false, code: "invalid_request", message: "resources outside the watched namespaces", issues: outsideWatch };
    }

    const accepted = await acceptObservation(this.settings.records, this.settings.leases, this.settings.signer, request, contentHash(asked), state, this.maxRecordBytes);
    if (!accepted.accepted) return accepted.result;
    this.begin(state, accepted.stored, mappings.value, release);
    return { ok: true, observationId, replay: false };
  }

  /**
   * Takes over an observation whose lease this replica just won: same id, same deadline, events on
   * the same subject. What the record holds as settled or failed stays so; pending resources are
   * read afresh. A record already decided only needs its verdict out; a lease without a record,
   * or a record whose key was never claimed, is what a crash during `observe` leaves behind.
   */
  async adopt(observationId: string, cause: AdoptionCause): Promise<void> {
    const { records, leases, logger } = this.settings;
    const found = await takeOver(records, observationId, this.replicaId, this.settings.analyses?.templates);
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
        const mappings = await resolveKinds(this.settings.kinds, record.request);
        if (!mappings.ok) throw new TakeOverError(`cannot resolve the kinds of observation ${observationId}: ${mappings.result.ok ? "" : mappings.result.message}`);
        if (!leases.holds(observationId) || this.driver.driven(observationId)) return;
        logger.info({ ...log, deployment: record.request.deployment, from: found.from, reached: record.verdict?.reached }, "observation adopted");
        const live = this.begin(found.state, { record, revision: found.revision }, mappings.value, this.admission.track(record.tenant ?? soleCaller.id));
        noteNotice(live.timeline, { type: "adopted", atMs: this.now(), message: `adopted by ${this.replicaId} from ${found.from ?? "nobody"} (${cause})` });
      }
    }
  }

  /**
   * Every observation driven here stops without a verdict and its lease is handed back, so another
   * replica adopts it at once (SIGTERM). Verdicts already decided are stored and published first.
   */
  async handOver(): Promise<void> {
    const ids = this.driver.ids();
    const writers = ids.map((id) => this.driver.driven(id)!.record);
    // Nothing new is read or decided; what was read is still stored (and its events published), so
    // the adopter resumes from the newest reading.
    for (const id of ids) this.driver.drop(id, { keepWriting: true });
    await this.driver.delivered();
    await Promise.allSettled(writers.map((writer) => writer.idle()));
    for (const writer of writers) writer.abandon();
    await Promise.allSettled(ids.map((id) => this.settings.leases.release(id)));
  }

  async cancel(observationId: string, reason: string | undefined, caller: Caller = soleCaller): Promise<ObservationVerdict | undefined> {
    const live = this.driver.driven(observationId);
    if (!live) return this.cancelElsewhere(observationId, reason, caller);
    if (!maySee(caller, live.state.tenant)) return undefined;
    this.driver.apply(live, cancelObservation(live.state, reason, this.now()));
    return (await live.delivery) ?? this.get(observationId, caller);
  }

  async get(observationId: string, caller: Caller = soleCaller): Promise<ObservationVerdict | undefined> {
    const verdict = await this.stored(observationId);
    return verdict && maySee(caller, verdict.tenant) ? verdict : undefined;
  }

  /** Ends every subscription and timer; observations in progress stay in the records, their leases expire. */
  stop(): void {
    this.driver.stop();
    this.quietWrites.stop();
  }

  /**
   * A cancel for an observation another replica drives, or nobody does: decided through the
   * record. The driver learns of it from its lease being removed (the lease watch) and from its
   * next record write failing, and stops without a verdict of its own.
   */
  private async cancelElsewhere(observationId: string, reason: string | undefined, caller: Caller): Promise<ObservationVerdict | undefined> {
    const stored = await this.settings.records.getRecord(observationId);
    if (stored === undefined || !maySee(caller, stored.record.tenant)) return undefined;
    const cancelled = await cancelThroughRecord(this.settings.records, stored, reason, this.now(), this.replicaId, this.settings.signer, this.settings.analyses?.templates);
    if (cancelled === undefined) return stored.record.verdict;
    if (cancelled.decidedHere) {
      this.settings.logger.info({ observationId, replica: this.replicaId, driver: stored.record.owner }, "cancelled through the record");
      this.decided.remember(cancelled.verdict);
      await this.settings.events.publish(verdictEventOf(cancelled.verdict));
      this.delivery.afterVerdict({ request: stored.record.request, verdict: cancelled.verdict, timeline: stored.record.timeline ?? emptyTimeline() });
      await this.settings.leases.removeWhoeverHolds(observationId);
    }
    return cancelled.verdict;
  }

  /**
   * The verdict as stored, not as in memory: every replica answers the same, and nothing answered
   * is lost by a crash. Its `tenant` is the record's (the service wrote both).
   */
  private async stored(observationId: string): Promise<ObservationVerdict | undefined> {
    const stored = this.driver.driven(observationId)?.record.storedVerdict;
    if (stored) return stored;
    const decided = this.decided.get(observationId);
    if (decided) return decided;
    return (await this.settings.records.getRecord(observationId))?.record.verdict;
  }

  /** Drives `state` here from now on, its record writer fenced by `stored`. */
  private begin(state: ObservationState, stored: StoredRecord, mappings: readonly ResourceMapping[], release: Release): LiveObservation {
    const { records, logger, scheduler, signer } = this.settings;
    const live = new LiveObservation({
      state,
      stored,
      records,
      signer,
      logger,
      owner: this.replicaId,
      scheduler,
      onSuperseded: (current) => void this.superseded(state.observationId, current),
      maxRecordBytes: this.maxRecordBytes,
      release,
      quietWrites: this.quietWrites,
    });
    this.driver.begin(live, mappings);
    return live;
  }

  /** What the deployment's earlier observations took; none without a history, and none when it cannot be read (it is advice). */
  private async outlookOf(deployment: string, tenant: string | undefined): Promise<HistoryOutlook | undefined> {
    const { history, logger } = this.settings;
    if (!history) return undefined;
    try {
      const earlier = await history.read(deployment, tenant);
      return earlier.entries.length > 0 ? outlookOf(earlier) : undefined;
    } catch (error) {
      logger.warn({ deployment, err: error }, "cannot read the deployment's history; observing without an expectation");
      return undefined;
    }
  }

  /** Another replica wrote the record: it decided or adopted the observation. */
  private async superseded(observationId: string, current: StoredRecord | undefined): Promise<void> {
    this.settings.logger.warn({ observationId, replica: this.replicaId, by: current?.record.owner }, "observation record changed elsewhere; no longer driving it");
    this.leave(observationId);
    await this.delivery.standDown(observationId, current);
  }

  /** The observation went elsewhere (lease lost, record superseded): stop without a verdict. */
  private leave(observationId: string): void {
    if (!this.driver.driven(observationId)) return;
    this.driver.drop(observationId);
    this.settings.events.discard(observationId);
    this.settings.metrics.observationLeft();
  }

  private get replicaId(): string {
    return this.settings.leases.replicaId;
  }

  private now(): number {
    return this.settings.scheduler.now();
  }
}

// Getting a decided verdict out, exactly once (SPEC section 7: exactly one `verdict` event per
// observation). The terminal outcome is stored with a compare-and-swap on the record first, and
// only the replica whose write won publishes it, with a message id the stream de-duplicates on;
// the lease is removed last, so a crash in between leaves the lease to tell its next holder to
// check that the verdict went out. A replica whose terminal write lost stands down: the record's
// verdict is the one that stands, and its writer publishes it.
//
// "Went out" means a verdict the service signed is on the stream, not any message of type verdict
// (anyone who may publish on the events subjects can put one there first); and what is
// republished from a record must carry the service's signature: a record someone else wrote,
// or one signed by a key no longer trusted, is never published under the service's name.
import type { Logger } from "../../logging/index.js";
import type { ServiceSigner } from "../../signing/index.js";
import type { ObservationRecord, StoredRecord } from "../../bus/index.js";
import { emptyTimeline, historyEntryOf, isTerminal, outlookOf, type ObservationEvent, type ObservationState, type ObservationVerdict } from "../../verdicts/index.js";
import type { DecidedObservation } from "../../verdicts/index.js";
import type { EventStore, ObservationEngineOptions } from "../ports.js";
import type { LeaseKeeper } from "../leases/leaseKeeper.js";
import type { RecentVerdicts } from "./recentVerdicts.js";
import { verdictEventOf } from "../records/recordedObservations.js";
import type { DecideResult } from "../records/recordWriter.js";
import type { EngineMetrics } from "../telemetry.js";
import { recordVerdict } from "./verdictTelemetry.js";

export interface VerdictDeliveryOptions {
  readonly events: EventStore;
  readonly leases: LeaseKeeper;
  readonly decided: RecentVerdicts;
  readonly metrics: EngineMetrics;
  readonly logger: Logger;
  readonly signer: ServiceSigner;
  readonly now: () => number;
  readonly history?: ObservationEngineOptions["history"];
  readonly traces?: ObservationEngineOptions["traces"];
}

export interface Decided extends DecidedObservation {
  readonly state: ObservationState;
  readonly verdict: ObservationVerdict;
  /** The progress and stage events of the step that decided, published before the verdict. */
  readonly events: readonly ObservationEvent[];
  /** performance.now() of the watch event that decided, for event_to_verdict_seconds. */
  readonly receivedAt: number | undefined;
}

export class VerdictDelivery {
  private readonly options: VerdictDeliveryOptions;

  constructor(options: VerdictDeliveryOptions) {
    this.options = options;
  }

  /** After the terminal write: publishes when it was stored, stands down when another replica's write won. Returns the verdict that stands. */
  async deliver(decided: Decided, stored: DecideResult): Promise<ObservationVerdict | undefined> {
    const { state, verdict } = decided;
    const id = state.observationId;
    const { metrics, logger, leases } = this.options;
    if (!stored.stored) {
      const standing = stored.current?.record.verdict;
      logger.warn(
        { observationId: id, replica: leases.replicaId, outcome: verdict.outcome, standing: standing?.outcome },
        "verdict not stored: the record was decided or taken elsewhere",
      );
      if (standing && isTerminal(standing.outcome)) this.options.decided.remember(standing);
      metrics.observationLeft();
      await this.standDown(id, stored.current);
      return standing;
    }
    this.options.decided.remember(verdict);
    recordVerdict(state, verdict, this.options.now(), metrics, logger);
    for (const event of decided.events) void this.options.events.publish(event);
    await this.options.events.publish(verdictEventOf(verdict));
    if (decided.receivedAt !== undefined) metrics.eventToVerdict((performance.now() - decided.receivedAt) / 1000, this.options.traces?.traceIdOf(decided.request, id));
    this.afterVerdict(decided);
    await leases.remove(id);
    return verdict;
  }

  /**
   * A verdict just went out from here: the observation's trace is exported and it joins its
   * deployment's history, both from what the record holds, both after the verdict and never
   * awaited by it. Once per verdict published here; the history counts an observation once even
   * if a crash makes two replicas get here.
   */
  afterVerdict(decided: DecidedObservation): void {
    const { history, traces, logger, metrics } = this.options;
    traces?.export(decided);
    if (!history || !isTerminal(decided.verdict.outcome)) return;
    const { deployment } = decided.request;
    const { tenant } = decided.verdict;
    history.append(deployment, tenant, historyEntryOf(decided.verdict, decided.timeline)).then(
      (next) => metrics.expectation(deployment, tenant, outlookOf(next).stages),
      (error: unknown) => logger.warn({ observationId: decided.verdict.observationId, deployment, err: error }, "observation not added to its deployment's history"),
    );
  }

  /** The record went elsewhere: whoever holds the lease of a decided record makes sure its verdict is out; otherwise let go. */
  async standDown(observationId: string, current: StoredRecord | undefined): Promise<void> {
    if (current && isTerminal(current.record.outcome) && this.options.leases.holds(observationId)) await this.publishRecorded(current.record);
    else this.options.leases.forget(observationId);
  }

  /**
   * A decided record whose lease this replica holds: publishes its verdict unless the service's
   * signed verdict is out already, then ends the lease. A stored verdict the service did not sign
   * is left unpublished (and logged): clients that verify would refuse it anyway, and those that
   * do not must not be handed it by the service.
   */
  async publishRecorded(record: ObservationRecord): Promise<void> {
    const { verdict, observationId } = record;
    const { events, leases, logger, signer, metrics } = this.options;
    const log = { observationId, replica: leases.replicaId };
    if (verdict) {
      const trust = signer.trustsVerdict(verdict, observationId);
      if (!trust.trusted) {
        metrics.untrustedVerdictFound();
        logger.error({ ...log, problem: trust.problem, reason: trust.message }, "stored verdict not published: it does not carry the service's signature");
      } else if (!(await events.hasVerdict(record.request.deployment, observationId, record.tenant))) {
        logger.info(log, "publishing a verdict its driver stored but may not have sent");
        await events.publish(verdictEventOf(verdict));
        this.afterVerdict({ request: record.request, verdict, timeline: record.timeline ?? emptyTimeline() });
      }
    }
    await leases.remove(observationId);
  }
}

// What the engine counts and logs, behind narrow interfaces with no-op defaults: the service plugs
// in prom-client and pino at start-up; unit tests need neither.
import type { Outcome, Stage, StageEstimate } from "../verdicts/index.js";
import type { AdoptionCause } from "./leases/leasePolicy.js";

export interface EngineMetrics {
  /** `observations_active` up. */
  observationStarted(): void;
  /** `stage_reached_seconds{stage,deployment,tenant}`; `tenant` undefined without a tenants file. */
  stageReached(stage: Stage, deployment: string, tenant: string | undefined, seconds: number): void;
  /** `observations_active` down, `observations_total` and `verdict_seconds{required,outcome}`. */
  observationDecided(required: Stage, outcome: Outcome, seconds: number): void;
  /** `verification_windows_total{result}`: a `require: verified` observation decided after its window opened. */
  verificationEnded(outcome: Outcome): void;
  /** `failures_total{kind,reason,tenant}`: the resource failure that decided an observation, once. */
  resourceFailed(kind: string, reason: string, tenant: string | undefined): void;
  /** `event_to_verdict_seconds`: from receiving the deciding watch event to the verdict stored on NATS. */
  /** `traceId`: the trace of the observation, when traces are exported (the exemplar linking a slow verdict to its trace). */
  eventToVerdict(seconds: number, traceId?: string): void;
  /** What the deployment's history expects, once a verdict joined it (the dashboard's history panel). */
  expectation(deployment: string, tenant: string | undefined, estimates: Partial<Record<Stage, StageEstimate>>): void;
  /** `observations_active` down: an observation left this replica undecided (lease lost, hand-over). */
  observationLeft(): void;
  /** `untrusted_verdicts_total{found_in="record"}`: a decided record whose verdict the service did not sign, so not published. */
  untrustedVerdictFound(): void;
}

/** What the lease keeper and the adopter count. */
export interface LeaseMetrics {
  /** `leases_held`: leases this replica holds now. */
  leasesHeld(count: number): void;
  /** `lease_renewals_failed_total`: a heartbeat not stored (NATS unreachable, or another process under this replica id). */
  leaseRenewalFailed(): void;
  /** `observations_adopted_total{cause}`: taken over from a lease that expired or was released. */
  observationAdopted(cause: AdoptionCause): void;
}

export const noopLeaseMetrics: LeaseMetrics = {
  leasesHeld: () => {},
  leaseRenewalFailed: () => {},
  observationAdopted: () => {},
};

export const noopEngineMetrics: EngineMetrics = {
  observationStarted: () => {},
  stageReached: () => {},
  observationDecided: () => {},
  resourceFailed: () => {},
  verificationEnded: () => {},
  eventToVerdict: () => {},
  expectation: () => {},
  observationLeft: () => {},
  untrustedVerdictFound: () => {},
};

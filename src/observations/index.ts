// Observations in progress: watch events routed by index to the observations that declared the
// objects (or own their pods), decided by the verdict reducer, published on the bus.
export { ObservationEngine } from "./engine.js";
export type { EventStore, KindSource, ObservationEngineOptions, TraceSink } from "./ports.js";
export { defaultMaxPayloadBytes } from "./ports.js";
export { defaultMaxLogReads } from "./logTails/logTails.js";
export { defaultAdmissionLimits } from "./admission/admission.js";
export type { AdmissionLimits } from "./admission/admission.js";
export { OwnedObjectIndex } from "./routing/ownedObjects.js";
export { noopEngineMetrics, noopLeaseMetrics } from "./telemetry.js";
export type { EngineMetrics, LeaseMetrics } from "./telemetry.js";
export { LeaseKeeper, LeaseExistsError } from "./leases/leaseKeeper.js";
export type { LeaseKeeperOptions } from "./leases/leaseKeeper.js";
export { Adopter } from "./leases/adoption.js";
export type { AdopterOptions, AdoptingEngine } from "./leases/adoption.js";
export { adoptionCause, adoptionCauses, defaultLeaseTiming, leaseTimingFor } from "./leases/leasePolicy.js";
export type { AdoptionCause, LeaseTiming } from "./leases/leasePolicy.js";
export { InMemoryObservationRecords } from "./records/inMemoryRecords.js";
export { InMemoryLeaseStore } from "./leases/inMemoryLeases.js";

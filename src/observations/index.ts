// Observations in progress: watch events routed by index to the observations that declared the
// objects (or own their pods), decided by the verdict reducer, published on the bus.
export { ObservationEngine } from "./engine.js";
export type { EventStore, KindSource, ObservationEngineOptions, TraceSink } from "./ports.js";
export { defaultMaxPayloadBytes } from "./ports.js";
export { defaultMaxLogReads } from "./logTails.js";
export { defaultAdmissionLimits } from "./admission.js";
export type { AdmissionLimits } from "./admission.js";
export { OwnedObjectIndex } from "./ownedObjects.js";
export { noopEngineMetrics, noopLeaseMetrics } from "./telemetry.js";
export type { EngineMetrics, LeaseMetrics } from "./telemetry.js";
export { LeaseKeeper, LeaseExistsError } from "./leaseKeeper.js";
export type { LeaseKeeperOptions } from "./leaseKeeper.js";
export { Adopter } from "./adoption.js";
export type { AdopterOptions, AdoptingEngine } from "./adoption.js";
export { adoptionCause, adoptionCauses, defaultLeaseTiming, leaseTimingFor } from "./leasePolicy.js";
export type { AdoptionCause, LeaseTiming } from "./leasePolicy.js";
export { InMemoryObservationRecords } from "./inMemoryRecords.js";
export { InMemoryLeaseStore } from "./inMemoryLeases.js";

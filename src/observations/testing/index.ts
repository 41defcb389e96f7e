// Test support for the observation engine: an API server's collections over the streams'
// scripted transport, an event sink that keeps what was published, and (re-exported from the
// product code local mode runs on) in-memory records and leases. Not used by the service itself.
export { CapturingEventStore } from "./capturingEventStore.js";
export { InMemoryObservationRecords } from "../records/inMemoryRecords.js";
export { InMemoryLeaseStore } from "../leases/inMemoryLeases.js";
export { InMemoryHistories } from "./inMemoryHistories.js";
export { ScriptedCluster } from "./scriptedCluster.js";
export type { DiscoveredKind } from "./scriptedCluster.js";
export { drainMicrotasks, engineHarness, observationRequest, putObjects } from "./engineHarness.js";
export type { EngineHarness, EngineHarnessOptions, LoggedLine } from "./engineHarness.js";

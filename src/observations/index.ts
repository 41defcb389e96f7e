// Observations in progress: watch events routed by index to the observations that declared the
// objects (or own their pods), decided by the verdict reducer, published on the bus.
export { ObservationEngine } from "./engine.js";
export type { EventSink, KindSource, ObservationEngineOptions } from "./engine.js";
export { OwnedObjectIndex } from "./ownedObjects.js";
export { noopEngineMetrics, silentEngineLogger } from "./telemetry.js";
export type { EngineLogger, EngineMetrics } from "./telemetry.js";

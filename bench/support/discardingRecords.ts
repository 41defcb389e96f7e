// Observation records for benchmarks of the engine. The service keeps its records in a JetStream
// KV bucket, not in its heap: these accept every write and keep nothing, so neither heap nor CPU
// figures count a store the service does not have.
import type { ObservationRecords } from "../../src/bus/index.ts";

export function discardingRecords(): ObservationRecords {
  let revision = 0;
  return {
    claimKey: async () => ({ claimed: true }),
    putRecord: async () => ++revision,
    getRecord: async () => undefined,
    getClaim: async () => undefined,
    updateRecord: async () => ({ updated: true, revision: ++revision }),
    deleteRecord: async () => undefined,
  };
}

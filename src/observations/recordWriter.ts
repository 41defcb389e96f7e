// Keeps one observation's KV record in step with its verdict. Writes run one after another and
// each compares-and-swaps the revision the previous one wrote, so a record changed by another
// replica is never overwritten (it is logged instead); a failed write never reaches the engine.
import type { ObservationRecord, ObservationRecords } from "../bus/index.js";
import type { ObservationVerdict } from "../verdicts/index.js";
import type { EngineLogger } from "./telemetry.js";

export class RecordWriter {
  private readonly records: ObservationRecords;
  private readonly logger: EngineLogger;
  private stored: { record: ObservationRecord; revision: number };
  private pending: Promise<void> = Promise.resolve();

  constructor(records: ObservationRecords, logger: EngineLogger, initial: { record: ObservationRecord; revision: number }) {
    this.records = records;
    this.logger = logger;
    this.stored = initial;
  }

  write(verdict: ObservationVerdict): Promise<void> {
    this.pending = this.pending.then(() => this.writeNow(verdict));
    return this.pending;
  }

  private async writeNow(verdict: ObservationVerdict): Promise<void> {
    const record: ObservationRecord = { ...this.stored.record, outcome: verdict.outcome, verdict };
    try {
      const update = await this.records.updateRecord(record, this.stored.revision);
      if (update.updated) this.stored = { record, revision: update.revision };
      else this.logger.warn({ observationId: verdict.observationId }, "observation record changed elsewhere; not overwritten");
    } catch (error) {
      this.logger.error({ observationId: verdict.observationId, err: error }, "cannot store the observation record");
    }
  }
}

// ObservationRecords in memory with the JetStream KV semantics the engine relies on: revisions are
// one sequence across every key (a KV bucket is one stream), `updateRecord` is a compare-and-swap
// on the revision last read, and a key is claimed once. Records go through JSON and the record
// schema on the way in, as they would on the wire, so an engine writing an invalid record fails.
// `stagewatch observe` in local mode keeps its one observation's record here: nothing outlives the
// process, so nothing pretends to be durable (no replay by key, no hand-over); the engine's unit
// tests use the same store.
import { ObservationRecord, type KeyClaim, type ObservationRecords, type RecordUpdate, type StoredRecord } from "../../bus/index.js";
import { describeIssues, parseWith } from "../../verdicts/index.js";

interface Stored {
  readonly json: string;
  readonly revision: number;
}

export class InMemoryObservationRecords implements ObservationRecords {
  private sequence = 0;
  private readonly records = new Map<string, Stored>();
  private readonly claims = new Map<string, { observationId: string; contentHash: string }>();

  async claimKey(key: string, contentHash: string, observationId: string, tenant: string | undefined): Promise<KeyClaim> {
    const held = this.claims.get(claimOf(key, tenant));
    if (held) return { claimed: false, ...held };
    this.claims.set(claimOf(key, tenant), { observationId, contentHash });
    this.sequence += 1;
    return { claimed: true };
  }

  async putRecord(record: ObservationRecord): Promise<number> {
    return this.write(record);
  }

  async getRecord(observationId: string): Promise<StoredRecord | undefined> {
    const stored = this.records.get(observationId);
    return stored && { record: decode(stored.json), revision: stored.revision };
  }

  async getClaim(key: string, tenant: string | undefined): Promise<{ observationId: string; contentHash: string } | undefined> {
    return this.claims.get(claimOf(key, tenant));
  }

  async updateRecord(record: ObservationRecord, revision: number): Promise<RecordUpdate> {
    const stored = this.records.get(record.observationId);
    if (stored?.revision !== revision) return { updated: false, current: await this.getRecord(record.observationId) };
    return { updated: true, revision: this.write(record) };
  }

  async deleteRecord(observationId: string): Promise<void> {
    this.records.delete(observationId);
  }

  /** Every observation id with a record, in the order first written. */
  ids(): string[] {
    return [...this.records.keys()];
  }

  private write(record: ObservationRecord): number {
    const json = JSON.stringify(record);
    decode(json);
    this.sequence += 1;
    this.records.set(record.observationId, { json, revision: this.sequence });
    return this.sequence;
  }
}

/** Each tenant's keys are its own, as in the KV bucket. */
const claimOf = (key: string, tenant: string | undefined) => JSON.stringify([tenant ?? null, key]);

function decode(json: string): ObservationRecord {
  const parsed = parseWith(ObservationRecord, JSON.parse(json));
  if (!parsed.ok) throw new Error(`observation record does not match its schema: ${describeIssues(parsed.issues)}`);
  return parsed.value;
}

// Observation records in a JetStream KV bucket: what was asked (request, resolved identities),
// the budget (deadline), and how far it got (outcome, verdict). Idempotency by key is answered
// from here, and restart and hand-over between replicas will be built on it, so every decision
// must be reconstructible from a record and the cluster.
//
// Two entries per observation:
//   observations.<observationId>   the record, updated with compare-and-swap on its revision
//   keys.<sha256(key)>             the idempotency claim: which observation owns a request key
//                                  (with a tenant, keys.<sha256(tenant LF key)>: each tenant's keys
//                                  are its own, so two teams using `ci-1/app` get two observations)
// A claim is made with kv.create, which the stream accepts only if the key has no live value, so
// of two replicas racing on one key exactly one wins; the other learns the winner's id and hash.
// Write the record before claiming the key, so a claim never points to a record that does not
// exist; a replica that loses the claim deletes its own record.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { z } from "zod";
import { ObservationRequest, ObservationVerdict, Outcome, ResourceIdentity } from "../../verdicts/contract/schemas.js";
import { Timeline } from "../../verdicts/contract/timeline.js";
import { parseWith, describeIssues } from "../../verdicts/contract/validation.js";
import { sha256Hex } from "../contentHash.js";
import { isCompareAndSwapConflict, openKvBucket, type KvBucketOptions } from "./kvBuckets.js";
import { busNames, defaultSubjectPrefix, isSubjectToken } from "../subjects.js";

// Loose: a record written by a newer replica keeps the fields this version does not know when
// this version updates it.
export const ObservationRecord = z.looseObject({
  observationId: z.string().refine(isSubjectToken, "must be a subject token"),
  /** contentHash(request): a replay is the same key with the same hash. */
  contentHash: z.string(),
  request: ObservationRequest,
  /** The declared resources with their namespace resolved (defaultNamespace applied). */
  identities: z.array(ResourceIdentity),
  startedAt: z.iso.datetime({ offset: true }),
  /** Absolute, so a restarted service never restarts the clock (SPEC section 5). */
  deadline: z.iso.datetime({ offset: true }),
  outcome: Outcome,
  verdict: ObservationVerdict.optional(),
  /** The replica that wrote it last as the observation's driver (its lease holder then). */
  owner: z.string().optional(),
  /** How many times a replica took the observation over from another (or from itself, restarted). */
  adoptions: z.number().int().nonnegative().optional(),
  /** Identity keys found to be bootstrap Jobs by their label: the verdict does not say, a resumption needs it. */
  labelledBootstrap: z.array(z.string()).optional(),
  /** The tenant that asked (a tenants file's NATS account); absent without a tenants file. Only it (and an admin) sees the observation. */
  tenant: z.string().optional(),
  /** When stages were reached, resources settled or failed, notices given: what traces and the history are built from. */
  timeline: Timeline.optional(),
});
export type ObservationRecord = z.infer<typeof ObservationRecord>;

export const KeyClaimEntry = z.object({ observationId: z.string(), contentHash: z.string() });

export type KeyClaim = { claimed: true } | { claimed: false; observationId: string; contentHash: string };
export type StoredRecord = { record: ObservationRecord; revision: number };
export type RecordUpdate = { updated: true; revision: number } | { updated: false; current: StoredRecord | undefined };

/** `tenant`: whose key it is (undefined without a tenants file); the same key of two tenants is two claims. */
export type ObservationRecords = {
  claimKey(key: string, contentHash: string, observationId: string, tenant: string | undefined): Promise<KeyClaim>;
  /** Writes a record unconditionally (a new observation); returns its revision. */
  putRecord(record: ObservationRecord): Promise<number>;
  getRecord(observationId: string): Promise<StoredRecord | undefined>;
  /** Who holds the claim of a request key, if anyone. */
  getClaim(key: string, tenant: string | undefined): Promise<{ observationId: string; contentHash: string } | undefined>;
  /** Writes only if the stored revision is still `revision`; otherwise returns what is stored now. */
  updateRecord(record: ObservationRecord, revision: number): Promise<RecordUpdate>;
  deleteRecord(observationId: string): Promise<void>;
};

/** `ttlMs`: how long records and key claims live; after it, a reused key starts a new observation. Default 7 days. */
export type ObservationRecordsOptions = KvBucketOptions & { prefix?: string };

export class RecordCorruptError extends Error {
  override readonly name = "RecordCorruptError";
}

/** The claim of a key vanished and reappeared under us twice in a row; the caller may retry. */
export class KeyClaimContendedError extends Error {
  override readonly name = "KeyClaimContendedError";
}

const recordKey = (observationId: string) => `observations.${observationId}`;
// A key holds no control characters (its schema) and a tenant id none at all, so the line feed
// cannot be forged by either; without a tenant the claim is where it was before tenants.
const claimKeyOf = (key: string, tenant: string | undefined) => `keys.${sha256Hex(tenant === undefined ? key : `${tenant}\n${key}`)}`;

function decode<S extends z.ZodType>(schema: S, text: string, what: string): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new RecordCorruptError(`${what} is not JSON`, { cause });
  }
  const parsed = parseWith(schema, json);
  if (!parsed.ok) throw new RecordCorruptError(`${what} does not match its schema: ${describeIssues(parsed.issues)}`);
  return parsed.value;
}

export async function openObservationRecords(js: JetStreamClient, options: ObservationRecordsOptions = {}): Promise<ObservationRecords> {
  return observationRecordsIn(await openKvBucket(js, busNames(options.prefix ?? defaultSubjectPrefix).recordsBucket, options));
}

/** The records API over an opened bucket (the service opens it once; tests may bring their own). */
export function observationRecordsIn(kv: KV): ObservationRecords {
  const getRecord = async (observationId: string): Promise<StoredRecord | undefined> => {
    if (!isSubjectToken(observationId)) return undefined;
    const entry = await kv.get(recordKey(observationId));
    if (entry === null || entry.operation !== "PUT") return undefined;
    return { record: decode(ObservationRecord, entry.string(), `record ${observationId}`), revision: entry.revision };
  };

  return {
    async claimKey(key, contentHash, observationId, tenant) {
      const claim = JSON.stringify({ observationId, contentHash });
      // Two rounds: the winner's claim can expire (TTL) between our failed create and our read.
      for (let round = 0; round < 2; round++) {
        try {
          await kv.create(claimKeyOf(key, tenant), claim);
          return { claimed: true };
        } catch (error) {
          if (!isCompareAndSwapConflict(error)) throw error;
        }
        const entry = await kv.get(claimKeyOf(key, tenant));
        if (entry !== null && entry.operation === "PUT") {
          const held = decode(KeyClaimEntry, entry.string(), `claim of key ${JSON.stringify(key)}`);
          return { claimed: false, observationId: held.observationId, contentHash: held.contentHash };
        }
      }
      throw new KeyClaimContendedError(`claim of key ${JSON.stringify(key)} kept changing; giving up`);
    },

    async putRecord(record) {
      return kv.put(recordKey(record.observationId), JSON.stringify(record));
    },

    getRecord,

    async getClaim(key, tenant) {
      const entry = await kv.get(claimKeyOf(key, tenant));
      if (entry === null || entry.operation !== "PUT") return undefined;
      return decode(KeyClaimEntry, entry.string(), `claim of key ${JSON.stringify(key)}`);
    },

    async updateRecord(record, revision) {
      try {
        const next = await kv.update(recordKey(record.observationId), JSON.stringify(record), revision);
        return { updated: true, revision: next };
      } catch (error) {
        if (!isCompareAndSwapConflict(error)) throw error;
        return { updated: false, current: await getRecord(record.observationId) };
      }
    },

    async deleteRecord(observationId) {
      await kv.delete(recordKey(observationId));
    },
  };
}

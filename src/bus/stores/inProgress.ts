// What is in flight: for the `list` request, from the lease table the service's lease watch keeps
// (scoped to the caller's tenant before anything is read); for `stagewatch list` when no service
// answers, straight from the KV buckets the replicas keep. Read only: the buckets are bound, never created, and nothing is written, so
// this answers even while every replica is down (their leases then show expired, or released by a
// replica that shut down).
//
// The leases bucket is the index: it holds one key per observation not yet finished (leaseStore.ts
// says why a lease exists before its record and outlives its verdict until published), beside one
// heartbeat per replica, which says until when each replica's leases are held. Each lease's
// record says what was asked and how far it got; a lease whose record is missing (written a
// moment later) or decided (its verdict going out) is not in progress, and is left out.
import {
  JetStreamApiCodes,
  JetStreamApiError,
  JetStreamError,
  jetstream,
  type JetStreamClient,
} from "@nats-io/jetstream";
import {
  ClosedConnectionError,
  connect,
  PermissionViolationError,
  RequestError,
  TimeoutError,
  type NatsConnection,
} from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import { maySee, type Caller } from "../../tenants/index.js";
import { expectationOf } from "../../verdicts/history/history.js";
import type { Expectation, HistoryOutlook, InProgressItem, Stage } from "../../verdicts/contract/schemas.js";
import { parseWith } from "../../verdicts/contract/validation.js";
import { ObserverUnavailableError } from "../client/clientErrors.js";
import { NatsConfigError, NatsConnectionConfig, toConnectionOptions, type NatsConnectionConfigInput } from "../connectionOptions.js";
import { isHeartbeatKey, leaseHeldUntil, leaseStoreIn, type Heartbeat, type Lease, type LeaseEntry } from "./leaseStore.js";
import { observationRecordsIn, RecordCorruptError, type ObservationRecord, type ObservationRecords } from "./observationRecords.js";
import { busNames, defaultSubjectPrefix } from "../subjects.js";

/** held: its replica's heartbeat keeps it; expired or released: that replica is gone, another one adopts it. */
export type LeaseState = "held" | "expired" | "released";

/** `heldUntil`: the lease's term with its holder's heartbeat (`leaseHeldUntil`); the lease's own `expiresAt` when absent. */
export type InProgressObservation = { record: ObservationRecord; lease: Lease; leaseState: LeaseState; heldUntil?: string };
/** A key whose record this version cannot read (hand-written, or a newer schema): named, not hidden. */
export type UnreadableObservation = { observationId: string; problem: string };
export type InProgressListing = { observations: InProgressObservation[]; unreadable: UnreadableObservation[] };

/** `heartbeat`: the holder's, when known; without it the lease's own term decides. */
export function leaseState(lease: Lease, nowMs: number, heartbeat?: Heartbeat): LeaseState {
  if (lease.released) return "released";
  return leaseHeldUntil(lease, heartbeat) <= nowMs ? "expired" : "held";
}

/** One observation in progress as `list` answers it. */
export function inProgressItem({ record, lease, leaseState, heldUntil }: InProgressObservation): InProgressItem {
  return {
    observationId: record.observationId,
    deployment: record.request.deployment,
    key: record.request.key,
    required: record.request.require,
    reached: record.verdict?.reached ?? "none",
    startedAt: record.startedAt,
    deadline: record.deadline,
    ...(record.tenant !== undefined && { tenant: record.tenant }),
    ...withExpectation(record.verdict?.history, record.request.require),
    owner: { replica: lease.holder, lease: leaseState, leaseExpiresAt: heldUntil ?? lease.expiresAt },
  };
}

function withExpectation(history: HistoryOutlook | undefined, stage: Stage): { expectation?: Expectation } {
  const expectation = expectationOf(history, stage);
  return expectation ? { expectation } : {};
}

/** The lease table a replica keeps from its lease watch (src/observations/leases/adoption.ts): every lease and heartbeat, read without a KV request. */
export interface LeaseTable {
  leases(): Iterable<LeaseEntry>;
  heartbeat(replica: string): Heartbeat | undefined;
}

/** Whose observations `list` answers (the caller's tenant's; an admin's: every one), of one deployment or all. */
export type ListScope = { caller: Caller; deployment?: string | undefined };

/**
 * `list` as the service answers it, from the lease table its lease watch keeps: the leases of the
 * caller's tenant are picked first, by the tenant each lease names, and only their records read.
 * So a list neither reads nor waits on another tenant's observations (its latency told one tenant
 * how busy another was, +8 ms per 45 observations), and it opens no consumer on the leases bucket
 * (a key listing does, one per request, which outlived it: ~800 piled up under a flood and the
 * server's limit of 1,000 consumers made every list fail). A lease written by a version before
 * leases named their tenant is an admin's to see until its observation ends.
 */
export async function listVisible(table: LeaseTable, records: Pick<ObservationRecords, "getRecord">, scope: ListScope & { nowMs: number }): Promise<InProgressListing> {
  const { caller, deployment } = scope;
  const entries = [...table.leases()].filter(({ lease }) => maySee(caller, lease.tenant));
  const read = await recordsOf(entries, records);
  const found = read.found.filter(({ record }) => maySee(caller, record.tenant) && (deployment === undefined || record.request.deployment === deployment));
  const holders = new Set(found.map(({ entry }) => entry.lease.holder));
  const heartbeats = new Map([...holders].map((holder) => [holder, table.heartbeat(holder)] as const));
  return listingOf(found, caller.admin ? read.unreadable : [], heartbeats, scope.nowMs);
}

/** Oldest first, as the observations were started. Every tenant's, read from the buckets: `stagewatch list` when no service answers. */
export async function listInProgress(js: JetStreamClient, options: { prefix?: string; nowMs: number }): Promise<InProgressListing> {
  const names = busNames(options.prefix ?? defaultSubjectPrefix);
  const jsm = await js.jetstreamManager();
  for (const bucket of [names.leasesBucket, names.recordsBucket]) {
    try {
      await jsm.streams.info(`KV_${bucket}`);
    } catch (cause) {
      if (cause instanceof JetStreamApiError && cause.code === JetStreamApiCodes.StreamNotFound) {
        throw new ObserverUnavailableError(`no stagewatch service has run with subject prefix ${names.prefix} on this NATS (no KV bucket ${bucket})`, { cause });
      }
      throw cause;
    }
  }
  const kvm = new Kvm(js);
  const leaseKv = await kvm.open(names.leasesBucket);
  const leases = leaseStoreIn(leaseKv);
  const records = observationRecordsIn(await kvm.open(names.recordsBucket));
  const ids: string[] = [];
  for await (const key of await leaseKv.keys()) if (!isHeartbeatKey(key)) ids.push(key);
  const entries = (await Promise.all(ids.map((observationId) => leases.get(observationId)))).filter((entry) => entry !== undefined);
  const { found, unreadable } = await recordsOf(entries, records);
  // One heartbeat read per holder, however many leases it holds.
  const holders = [...new Set(found.map(({ entry }) => entry.lease.holder))];
  const heartbeats = new Map(await Promise.all(holders.map(async (holder) => [holder, (await leases.getHeartbeat(holder))?.heartbeat] as const)));
  return listingOf(found, unreadable, heartbeats, options.nowMs);
}

type Found = { entry: LeaseEntry; record: ObservationRecord };

/** The records of `entries` still in progress; a record missing (written a moment later) or decided (its verdict going out) is left out. */
async function recordsOf(entries: readonly LeaseEntry[], records: Pick<ObservationRecords, "getRecord">): Promise<{ found: Found[]; unreadable: UnreadableObservation[] }> {
  const found: Found[] = [];
  const unreadable: UnreadableObservation[] = [];
  await Promise.all(
    entries.map(async (entry) => {
      const { observationId } = entry;
      try {
        const stored = await records.getRecord(observationId);
        if (stored !== undefined && stored.record.outcome === "in_progress") found.push({ entry, record: stored.record });
      } catch (error) {
        if (!(error instanceof RecordCorruptError)) throw error;
        unreadable.push({ observationId, problem: error.message });
      }
    }),
  );
  return { found, unreadable };
}

function listingOf(found: readonly Found[], unreadable: UnreadableObservation[], heartbeats: ReadonlyMap<string, Heartbeat | undefined>, nowMs: number): InProgressListing {
  const observations = found.map(({ entry: { lease }, record }): InProgressObservation => {
    const heartbeat = heartbeats.get(lease.holder);
    const heldUntil = lease.released ? lease.expiresAt : new Date(leaseHeldUntil(lease, heartbeat)).toISOString();
    return { record, lease, leaseState: leaseState(lease, nowMs, heartbeat), heldUntil };
  });
  observations.sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt) || a.record.observationId.localeCompare(b.record.observationId));
  unreadable.sort((a, b) => a.observationId.localeCompare(b.observationId));
  return { observations, unreadable };
}

/** Connects, lists, closes. Throws NatsConfigError for bad settings, ObserverUnavailableError when NATS or the buckets are not there. */
export async function readInProgress(options: NatsConnectionConfigInput & { prefix?: string; nowMs: number }): Promise<InProgressListing> {
  const { prefix, nowMs, ...connection } = options;
  const config = parseWith(NatsConnectionConfig, connection);
  if (!config.ok) throw new NatsConfigError(config.issues);
  const names = busNames(prefix ?? defaultSubjectPrefix);
  let nc: NatsConnection;
  try {
    nc = await connect(toConnectionOptions(config.value));
  } catch (cause) {
    throw new ObserverUnavailableError(`cannot connect to NATS at ${config.value.servers.join(", ")}`, { cause });
  }
  try {
    return await listInProgress(jetstream(nc), { prefix: names.prefix, nowMs });
  } catch (cause) {
    if (!isNatsError(cause)) throw cause;
    throw new ObserverUnavailableError(`cannot read the KV buckets of ${names.prefix}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  } finally {
    await nc.close();
  }
}

/** NATS or JetStream refused or failed a read: the buckets are out of reach, as NATS down is. */
function isNatsError(error: unknown): boolean {
  return [JetStreamApiError, JetStreamError, TimeoutError, RequestError, PermissionViolationError, ClosedConnectionError].some(
    (type) => error instanceof type,
  );
}

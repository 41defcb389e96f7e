// What is in flight, read straight from the KV buckets the replicas keep: by the service for the
// `list` request (which scopes it to the caller's tenant), and by `stagewatch list` when no
// service answers. Read only: the buckets are bound, never created, and nothing is written, so
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
import { expectationOf } from "../verdicts/history.js";
import type { Expectation, HistoryOutlook, InProgressItem, Stage } from "../verdicts/schemas.js";
import { parseWith } from "../verdicts/validation.js";
import { ObserverUnavailableError } from "./clientErrors.js";
import { NatsConfigError, NatsConnectionConfig, toConnectionOptions, type NatsConnectionConfigInput } from "./connectionOptions.js";
import { isHeartbeatKey, leaseHeldUntil, leaseStoreIn, type Heartbeat, type Lease, type LeaseEntry } from "./leaseStore.js";
import { observationRecordsIn, RecordCorruptError, type ObservationRecord } from "./observationRecords.js";
import { busNames, defaultSubjectPrefix } from "./subjects.js";

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

/** Oldest first, as the observations were started. */
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

  const found: { entry: LeaseEntry; record: ObservationRecord }[] = [];
  const listing: InProgressListing = { observations: [], unreadable: [] };
  await Promise.all(
    ids.map(async (observationId) => {
      const entry = await leases.get(observationId);
      if (entry === undefined) return;
      try {
        const stored = await records.getRecord(observationId);
        if (stored !== undefined && stored.record.outcome === "in_progress") found.push({ entry, record: stored.record });
      } catch (error) {
        if (!(error instanceof RecordCorruptError)) throw error;
        listing.unreadable.push({ observationId, problem: error.message });
      }
    }),
  );
  // One heartbeat read per holder, however many leases it holds.
  const holders = [...new Set(found.map(({ entry }) => entry.lease.holder))];
  const heartbeats = new Map(await Promise.all(holders.map(async (holder) => [holder, (await leases.getHeartbeat(holder))?.heartbeat] as const)));
  for (const { entry, record } of found) {
    const { lease } = entry;
    const heartbeat = heartbeats.get(lease.holder);
    const heldUntil = lease.released ? lease.expiresAt : new Date(leaseHeldUntil(lease, heartbeat)).toISOString();
    listing.observations.push({ record, lease, leaseState: leaseState(lease, options.nowMs, heartbeat), heldUntil });
  }
  listing.observations.sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt) || a.record.observationId.localeCompare(b.record.observationId));
  listing.unreadable.sort((a, b) => a.observationId.localeCompare(b.observationId));
  return listing;
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

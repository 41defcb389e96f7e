// Leases in a JetStream KV bucket of their own (`<prefix>-leases`): which replica drives each
// observation in progress, and until when. One key an observation, named by its id, and one
// heartbeat key a replica (`heartbeats.<replica id, base64url>`: an observation id is a UUID, so
// the two never meet), which says the replica is alive and which incarnation of it that is.
//
// Lifecycle of a lease, and why in this order:
//   created   before the observation's record is written, so every record in progress has a lease
//             (possibly expired): the bucket is the index of unfinished work a replica adopts from;
//   held      written once, naming its holder and the holder's incarnation (one process's life),
//             with a term of its own (`expiresAt`); past that term it is held for as long as its
//             holder's heartbeat of that same incarnation is fresh (`leaseHeldUntil`). The holder
//             does not write it again: one heartbeat a replica covers all its leases;
//   released  (value marked `released`) by a replica shutting down: others adopt at once;
//   taken     by another replica with a compare-and-swap on the revision it read, when no longer
//             held or released: of two replicas racing for it exactly one wins;
//   removed   once the verdict is published: a lease left behind a decided record means "make sure
//             the verdict went out", which is how a crash between the two is repaired.
// A heartbeat is written by its replica every renewal interval (a compare-and-swap on the revision
// it wrote last, so another process writing under the same id is noticed), replaced by the next
// incarnation's at a restart (a plain put), and left to the bucket's TTL after a crash.
// Expiry is the writer's wall clock written as `expiresAt` and read against the reader's: the
// replicas' clocks must agree to well within the lease duration, as the absolute deadlines of
// observations already require.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { z } from "zod";
import { isCompareAndSwapConflict, openKvBucket, type KvBucketOptions } from "./kvBuckets.js";
import { busNames, defaultSubjectPrefix } from "../subjects.js";

export const Lease = z.object({
  /** The holder's replica id (as in its logs). */
  holder: z.string().min(1),
  /**
   * The holder's incarnation when it wrote the lease: its heartbeat keeps the lease only while it
   * names the same one. Absent in leases of versions before heartbeats, held by `expiresAt` alone.
   */
  incarnation: z.string().min(1).optional(),
  /** The lease's own term, from when it was written: it is held at least until then. */
  expiresAt: z.iso.datetime({ offset: true }),
  /** Handed back by its holder (shutdown): free to take now, whatever expiresAt says. */
  released: z.boolean().optional(),
  /**
   * The tenant whose observation it is (none without a tenants file), carried by every write of
   * the lease: `list` filters the lease table by it before it reads any record, so no tenant's
   * list reads, or waits on, another's. Absent in leases of versions before it (inProgress.ts).
   */
  tenant: z.string().min(1).optional(),
});
export type Lease = z.infer<typeof Lease>;

export const Heartbeat = z.object({
  replica: z.string().min(1),
  /** One process's life under that replica id: a restart under the same id writes another. */
  incarnation: z.string().min(1),
  /** The replica's leases of this incarnation are held until then. */
  expiresAt: z.iso.datetime({ offset: true }),
});
export type Heartbeat = z.infer<typeof Heartbeat>;

export type LeaseEntry = { observationId: string; lease: Lease; revision: number };
/** `entry` undefined: the lease was removed (its observation is decided and published). */
export type LeaseChange = { observationId: string; entry?: LeaseEntry | undefined };
export type HeartbeatEntry = { heartbeat: Heartbeat; revision: number };
/** `entry` undefined: the heartbeat was removed (by hand, or by the bucket's TTL). */
export type HeartbeatChange = { replica: string; entry?: HeartbeatEntry | undefined };

export interface LeaseWatch {
  stop(): void;
}

/**
 * What a lease watch delivers: every lease and heartbeat stored now, then every change, in order.
 * `watch` resolves once those stored now are delivered, so a table built from it is complete from
 * then on (adoption, and `list`, read it).
 */
export interface LeaseWatchHandlers {
  lease(change: LeaseChange): void;
  heartbeat(change: HeartbeatChange): void;
}

export interface LeaseStore {
  /** The lease of a new observation; undefined if one already exists. */
  create(observationId: string, lease: Lease): Promise<number | undefined>;
  /** Compare-and-swap: undefined when the stored revision is no longer `revision`. */
  update(observationId: string, lease: Lease, revision: number): Promise<number | undefined>;
  get(observationId: string): Promise<LeaseEntry | undefined>;
  /** Compare-and-swap removal; false when someone wrote it since `revision`. */
  remove(observationId: string, revision: number): Promise<boolean>;
  /**
   * Writes a replica's heartbeat: over whatever is stored without `revision` (a new incarnation),
   * else a compare-and-swap on it (undefined when someone else wrote it since).
   */
  beat(heartbeat: Heartbeat, revision?: number): Promise<number | undefined>;
  getHeartbeat(replica: string): Promise<HeartbeatEntry | undefined>;
  watch(handlers: LeaseWatchHandlers): Promise<LeaseWatch>;
}

/** A lease is removed when its observation ends; the bucket's TTL (7 days by default) only sweeps leftovers. */
export type LeaseStoreOptions = KvBucketOptions & { prefix?: string };

export async function openLeaseStore(js: JetStreamClient, options: LeaseStoreOptions = {}): Promise<LeaseStore> {
  return leaseStoreIn(await openKvBucket(js, busNames(options.prefix ?? defaultSubjectPrefix).leasesBucket, options));
}

/**
 * Until when `lease` is held (ms since the epoch): its own term, or its holder's heartbeat's if
 * that heartbeat is of the incarnation that wrote the lease. A restarted holder's new incarnation,
 * or a heartbeat that stopped, keeps nothing alive. A released lease is not held at all.
 */
export function leaseHeldUntil(lease: Lease, heartbeat: Heartbeat | undefined): number {
  if (lease.released) return Number.NEGATIVE_INFINITY;
  const own = Date.parse(lease.expiresAt);
  const covers = heartbeat !== undefined && lease.incarnation !== undefined && heartbeat.replica === lease.holder && heartbeat.incarnation === lease.incarnation;
  return covers ? Math.max(own, Date.parse(heartbeat.expiresAt)) : own;
}

/** The longest `watch` waits for the bucket's replay: a full 32 MiB bucket (about 150,000 leases) replays in a few seconds. */
const replayWaitMs = 30_000;

const heartbeatKeyPrefix = "heartbeats.";

/** A replica id may hold '.' (and so empty KV tokens): encoded, so every id is one valid key token. */
export function heartbeatKey(replica: string): string {
  return heartbeatKeyPrefix + Buffer.from(replica).toString("base64url");
}

export function isHeartbeatKey(key: string): boolean {
  return key.startsWith(heartbeatKeyPrefix);
}

function replicaOfHeartbeatKey(key: string): string {
  return Buffer.from(key.slice(heartbeatKeyPrefix.length), "base64url").toString();
}

/** A stored value that does not parse (written by hand, or by a future version) counts as absent. */
function parsed<T>(schema: z.ZodType<T>, text: string): T | undefined {
  try {
    const result = schema.safeParse(JSON.parse(text));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

export function leaseStoreIn(kv: KV): LeaseStore {
  const casOrUndefined = async (write: () => Promise<number>): Promise<number | undefined> => {
    try {
      return await write();
    } catch (error) {
      if (isCompareAndSwapConflict(error)) return undefined;
      throw error;
    }
  };
  return {
    create: (observationId, lease) => casOrUndefined(() => kv.create(observationId, JSON.stringify(lease))),
    update: (observationId, lease, revision) => casOrUndefined(() => kv.update(observationId, JSON.stringify(lease), revision)),
    async get(observationId) {
      const entry = await kv.get(observationId);
      if (entry === null || entry.operation !== "PUT") return undefined;
      const lease = parsed(Lease, entry.string());
      return lease && { observationId, lease, revision: entry.revision };
    },
    async remove(observationId, revision) {
      try {
        await kv.delete(observationId, { previousSeq: revision });
        return true;
      } catch (error) {
        if (isCompareAndSwapConflict(error)) return false;
        throw error;
      }
    },
    beat(heartbeat, revision) {
      const key = heartbeatKey(heartbeat.replica);
      const value = JSON.stringify(heartbeat);
      return revision === undefined ? kv.put(key, value) : casOrUndefined(() => kv.update(key, value, revision));
    },
    async getHeartbeat(replica) {
      const entry = await kv.get(heartbeatKey(replica));
      if (entry === null || entry.operation !== "PUT") return undefined;
      const heartbeat = parsed(Heartbeat, entry.string());
      return heartbeat && { heartbeat, revision: entry.revision };
    },
    async watch(handlers) {
      const watcher = await kv.watch();
      let replayed!: () => void;
      const caughtUp = new Promise<void>((resolve) => (replayed = resolve));
      void (async () => {
        for await (const entry of watcher) {
          const put = entry.operation === "PUT";
          if (isHeartbeatKey(entry.key)) {
            const heartbeat = put ? parsed(Heartbeat, entry.string()) : undefined;
            handlers.heartbeat({ replica: heartbeat?.replica ?? replicaOfHeartbeatKey(entry.key), entry: heartbeat && { heartbeat, revision: entry.revision } });
          } else {
            const lease = put ? parsed(Lease, entry.string()) : undefined;
            handlers.lease({ observationId: entry.key, entry: lease && { observationId: entry.key, lease, revision: entry.revision } });
          }
          // The last value stored when the watch began has none pending after it.
          if (entry.isUpdate || entry.delta === 0) replayed();
        }
      })();
      // Counted after the watch began: a key written since arrives on the watch either way.
      if ((await kv.status()).values === 0) replayed();
      // Bounded: a replay that never says it is done leaves the table filling as before, not the start-up hanging.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([caughtUp, new Promise<void>((resolve) => (timer = setTimeout(resolve, replayWaitMs)))]);
      clearTimeout(timer);
      return { stop: () => watcher.stop() };
    },
  };
}

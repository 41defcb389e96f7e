// Leases in a JetStream KV bucket of their own (`<prefix>-leases`): which replica drives each
// observation in progress, and until when. One key an observation, named by its id.
//
// Lifecycle, and why in this order:
//   created   before the observation's record is written, so every record in progress has a lease
//             (possibly expired): the bucket is the index of unfinished work a replica adopts from;
//   renewed   by its holder on a heartbeat, each write a compare-and-swap on the revision it wrote
//             last, so a lease taken over is never silently taken back;
//   released  (value marked `released`) by a replica shutting down: others adopt at once;
//   taken     by another replica with a compare-and-swap on the revision it read, when expired or
//             released: of two replicas racing for it exactly one wins;
//   removed   once the verdict is published: a lease left behind a decided record means "make sure
//             the verdict went out", which is how a crash between the two is repaired.
// Expiry is the holder's wall clock written as `expiresAt` and read against the reader's: the
// replicas' clocks must agree to well within the lease duration, as the absolute deadlines of
// observations already require.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { z } from "zod";
import { isCompareAndSwapConflict, openKvBucket, type KvBucketOptions } from "./kvBuckets.js";
import { busNames, defaultSubjectPrefix } from "./subjects.js";

export const Lease = z.object({
  /** The holder's replica id (as in its logs). */
  holder: z.string().min(1),
  expiresAt: z.iso.datetime({ offset: true }),
  /** Handed back by its holder (shutdown): free to take now, whatever expiresAt says. */
  released: z.boolean().optional(),
});
export type Lease = z.infer<typeof Lease>;

export type LeaseEntry = { observationId: string; lease: Lease; revision: number };
/** `entry` undefined: the lease was removed (its observation is decided and published). */
export type LeaseChange = { observationId: string; entry?: LeaseEntry | undefined };

export interface LeaseWatch {
  stop(): void;
}

export interface LeaseStore {
  /** The lease of a new observation; undefined if one already exists. */
  create(observationId: string, lease: Lease): Promise<number | undefined>;
  /** Compare-and-swap: undefined when the stored revision is no longer `revision`. */
  update(observationId: string, lease: Lease, revision: number): Promise<number | undefined>;
  get(observationId: string): Promise<LeaseEntry | undefined>;
  /** Compare-and-swap removal; false when someone wrote it since `revision`. */
  remove(observationId: string, revision: number): Promise<boolean>;
  /** Every lease stored now, then every change, in order, until stopped. */
  watch(onChange: (change: LeaseChange) => void): Promise<LeaseWatch>;
}

/** A lease is removed when its observation ends; the bucket's TTL (7 days by default) only sweeps leftovers. */
export type LeaseStoreOptions = KvBucketOptions & { prefix?: string };

export async function openLeaseStore(js: JetStreamClient, options: LeaseStoreOptions = {}): Promise<LeaseStore> {
  return leaseStoreIn(await openKvBucket(js, busNames(options.prefix ?? defaultSubjectPrefix).leasesBucket, options));
}

/** A stored value that is not a lease (written by hand, or by a future version) counts as absent. */
function parseLease(text: string): Lease | undefined {
  try {
    const parsed = Lease.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
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
      const lease = parseLease(entry.string());
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
    async watch(onChange) {
      const watcher = await kv.watch();
      void (async () => {
        for await (const entry of watcher) {
          const lease = entry.operation === "PUT" ? parseLease(entry.string()) : undefined;
          onChange({ observationId: entry.key, entry: lease && { observationId: entry.key, lease, revision: entry.revision } });
        }
      })();
      return { stop: () => watcher.stop() };
    },
  };
}

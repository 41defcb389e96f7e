// When an observation's lease may be taken, how long a lease and a heartbeat last, and when a
// replica whose heartbeat cannot be written must stop. Pure: times are passed in.
//
// The numbers trade adoption delay against write load: a replica writes one heartbeat per renewal
// interval whatever it holds (at 5 s, a fifth of a KV write a second per replica), and a crashed
// replica's observations wait at most one lease duration for a new owner. Three heartbeats fit in
// one duration, so two lost in a row (a NATS leader election, a GC pause) never cost a lease that
// its holder still drives.
import { leaseHeldUntil, type Heartbeat, type Lease, type LeaseEntry } from "../../bus/index.js";

export interface LeaseTiming {
  /** How long a lease (or a heartbeat) holds unrenewed: the longest wait for a new owner after a crash. */
  readonly durationMs: number;
  /** How often the holder writes its heartbeat. */
  readonly renewEveryMs: number;
  /** How often a replica looks for leases that expired (in the lease table it watches, not the bucket). */
  readonly scanEveryMs: number;
}

/** The timing for a lease duration: a heartbeat at a third of it, a scan at most every second. */
export function leaseTimingFor(durationMs: number): LeaseTiming {
  return { durationMs, renewEveryMs: Math.max(100, Math.floor(durationMs / 3)), scanEveryMs: Math.min(1_000, Math.max(50, Math.floor(durationMs / 10))) };
}

/** 15 s: a heartbeat every 5 s, a scan every second. */
export const defaultLeaseTiming: LeaseTiming = leaseTimingFor(15_000);

/** How often the keeper looks at its heartbeat: a failed write is retried, and a lapse noticed, within this. */
export function heartbeatTickMs(timing: LeaseTiming): number {
  return Math.max(10, Math.floor(timing.renewEveryMs / 10));
}

/** Who this process is, for the lease rules: its replica id, its incarnation, when that began. */
export interface LeaseHolder {
  readonly replicaId: string;
  readonly incarnation: string;
  /** When this process began: a lease without an incarnation under its id written earlier is a previous process's. */
  readonly sinceMs: number;
}

/** `tenant`: the observation's, kept through every write of its lease. */
export function leaseHeldBy(holder: LeaseHolder, nowMs: number, timing: LeaseTiming, tenant?: string): Lease {
  return { holder: holder.replicaId, incarnation: holder.incarnation, expiresAt: new Date(nowMs + timing.durationMs).toISOString(), ...(tenant !== undefined && { tenant }) };
}

export function heartbeatOf(holder: LeaseHolder, nowMs: number, timing: LeaseTiming): Heartbeat {
  return { replica: holder.replicaId, incarnation: holder.incarnation, expiresAt: new Date(nowMs + timing.durationMs).toISOString() };
}

export function releasedLease(holder: string, nowMs: number, tenant?: string): Lease {
  return { holder, expiresAt: new Date(nowMs).toISOString(), released: true, ...(tenant !== undefined && { tenant }) };
}

/**
 * When a replica must have stopped driving everything it holds, given when the content of its last
 * stored heartbeat was computed (`lastBeatAtMs`; before any, when its incarnation began, which no
 * lease of it predates): a tick before that heartbeat expires, so it has stopped before any other
 * replica whose clock agrees may read its leases as free.
 */
export function heartbeatLapsesAt(lastBeatAtMs: number, timing: LeaseTiming): number {
  return lastBeatAtMs + timing.durationMs - heartbeatTickMs(timing);
}

export const adoptionCauses = ["expired", "released"] as const;
export type AdoptionCause = (typeof adoptionCauses)[number];

/**
 * Why `entry` may be taken by `self` now, or undefined when it may not. `heartbeat`: its holder's,
 * as last seen; `heldHere`: this process holds it (created, taken, or being created: the lease
 * watch may show a lease before its creator's own write is acknowledged).
 * - Released by its holder: free at once.
 * - Another replica's: free once neither its own term nor its holder's heartbeat of the incarnation
 *   that wrote it is fresh (`leaseHeldUntil`).
 * - This replica's, of an earlier incarnation (a restart under a stable id, a container restarted
 *   in its pod, or this process after its heartbeat lapsed): free at once, nothing here drives it.
 * - This replica's, of this incarnation, yet not held here (its removal failed after the verdict):
 *   this replica's heartbeat keeps it alive for everyone else, so this replica alone takes it back,
 *   once its own term has passed, as it would have expired before heartbeats.
 * - Without an incarnation (written before heartbeats): by its own term; this replica's own from
 *   before this process started is free at once.
 */
export function adoptionCause(entry: LeaseEntry, heartbeat: Heartbeat | undefined, self: LeaseHolder, nowMs: number, heldHere: boolean, timing: LeaseTiming): AdoptionCause | undefined {
  if (heldHere) return undefined;
  const { lease } = entry;
  if (lease.released) return "released";
  const ownTermMs = Date.parse(lease.expiresAt);
  if (lease.holder === self.replicaId) {
    if (lease.incarnation !== undefined && lease.incarnation !== self.incarnation) return "expired";
    if (lease.incarnation === undefined && ownTermMs - timing.durationMs < self.sinceMs) return "expired";
    return ownTermMs <= nowMs ? "expired" : undefined;
  }
  return leaseHeldUntil(lease, heartbeat) <= nowMs ? "expired" : undefined;
}

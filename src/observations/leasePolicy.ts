// When an observation's lease may be taken, and how long a lease lasts. Pure: times are passed in.
//
// The numbers trade adoption delay against write load: a replica renews every lease it holds once
// per renewal interval (1,000 observations at 5 s is 200 small KV writes a second), and a crashed
// replica's observations wait at most one lease duration for a new owner. Three renewals fit in
// one duration, so two lost heartbeats in a row (a NATS leader election, a GC pause) never cost a
// lease that its holder still drives.
import type { Lease, LeaseEntry } from "../bus/index.js";

export interface LeaseTiming {
  /** How long a lease holds without renewal: the longest wait for a new owner after a crash. */
  readonly durationMs: number;
  /** How often the holder renews. */
  readonly renewEveryMs: number;
  /** How often a replica looks for leases that expired (in the lease table it watches, not the bucket). */
  readonly scanEveryMs: number;
}

/** The timing for a lease duration: renew at a third of it, scan at most every second. */
export function leaseTimingFor(durationMs: number): LeaseTiming {
  return { durationMs, renewEveryMs: Math.max(100, Math.floor(durationMs / 3)), scanEveryMs: Math.min(1_000, Math.max(50, Math.floor(durationMs / 10))) };
}

/** 15 s: renewed every 5 s, scanned every second. */
export const defaultLeaseTiming: LeaseTiming = leaseTimingFor(15_000);

export function leaseHeldBy(holder: string, nowMs: number, timing: LeaseTiming): Lease {
  return { holder, expiresAt: new Date(nowMs + timing.durationMs).toISOString() };
}

export function releasedLease(holder: string, nowMs: number): Lease {
  return { holder, expiresAt: new Date(nowMs).toISOString(), released: true };
}

export const adoptionCauses = ["expired", "released"] as const;
export type AdoptionCause = (typeof adoptionCauses)[number];

/**
 * Why `entry` may be taken by replica `self` now, or undefined when it may not; `heldHere` says this
 * process holds it (created, taken, or being created: the lease watch may show a lease before its
 * creator's own write is acknowledged). A lease released by its holder is free at once; an
 * expired one is free whoever held it. A lease under this replica's own id that was written before
 * this process started (`selfSinceMs`) is a previous incarnation's: a restart under a stable id
 * (a container restarted in its pod) takes its observations back at once.
 */
export function adoptionCause(entry: LeaseEntry, self: string, nowMs: number, heldHere: boolean, selfSinceMs: number, timing: LeaseTiming): AdoptionCause | undefined {
  if (heldHere) return undefined;
  if (entry.lease.released) return "released";
  const expiresAtMs = Date.parse(entry.lease.expiresAt);
  if (expiresAtMs <= nowMs) return "expired";
  if (entry.lease.holder === self && expiresAtMs - timing.durationMs < selfSinceMs) return "expired";
  return undefined;
}

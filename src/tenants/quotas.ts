// What one caller may make the service spend, and the share of it each replica enforces.
//
// A replica cannot see the others' counts (the NATS queue group hands each request to one replica
// at random), so a quota meant for the service as a whole is split: with `replicas` configured to
// the number running, each replica enforces quota / replicas (counts rounded down, never below
// one; rates exactly, with a burst of at least one request). Together the replicas then admit at
// most max(quota, replicas) observations in flight and quota requests a second. The price is that a
// tenant below its quota can be refused by the one replica whose share it used up: the refusal is
// `quota`, retryable, and the retry may reach another replica.
import type { Caller } from "./caller.js";

/** Each limit under the name its refusals give (docs/operator/limits.md). */
export type CallerQuotas = {
  /** Observations in flight. */
  readonly inFlightPerCaller: number;
  /** `observe` requests a second (replays included: each costs a lookup). */
  readonly requestsPerSecond: number;
  readonly getsPerSecond: number;
  readonly cancelsPerSecond: number;
  /** `list` reads the records of the caller's observations in progress: the dearest request. */
  readonly listsPerSecond: number;
  /** Requests of every kind waiting or being handled at once. */
  readonly pendingPerCaller: number;
};

export const defaultCallerQuotas = {
  inFlightPerCaller: 500,
  requestsPerSecond: 50,
  getsPerSecond: 100,
  cancelsPerSecond: 20,
  listsPerSecond: 5,
  pendingPerCaller: 200,
} as const satisfies CallerQuotas;

export type QuotaName = keyof CallerQuotas;

/** How a caller is named in a refusal: `tenant TEAM_B`, or `caller default` without a tenants file. */
export function callerLabel(caller: Pick<Caller, "id" | "tenant">): string {
  return caller.tenant === undefined ? `caller ${caller.id}` : `tenant ${caller.tenant}`;
}

/** The caller's quotas for the service as a whole: its tenant's, else `defaults`. */
export function quotasOf(caller: Pick<Caller, "quotas"> | undefined, defaults: CallerQuotas): CallerQuotas {
  const q = caller?.quotas ?? {};
  return {
    inFlightPerCaller: q.inFlight ?? defaults.inFlightPerCaller,
    requestsPerSecond: q.requestsPerSecond ?? defaults.requestsPerSecond,
    getsPerSecond: q.getsPerSecond ?? defaults.getsPerSecond,
    cancelsPerSecond: q.cancelsPerSecond ?? defaults.cancelsPerSecond,
    listsPerSecond: q.listsPerSecond ?? defaults.listsPerSecond,
    pendingPerCaller: q.pending ?? defaults.pendingPerCaller,
  };
}

/** One quota as a replica enforces it. */
export type ReplicaShare = { readonly name: QuotaName; readonly whole: number; readonly replicas: number; readonly perReplica: number };

const rates: ReadonlySet<QuotaName> = new Set(["requestsPerSecond", "getsPerSecond", "cancelsPerSecond", "listsPerSecond"]);

/** This replica's share of `whole`, the caller's quota `name` for the service as a whole. */
export function replicaShare(name: QuotaName, whole: number, replicas: number): ReplicaShare {
  const n = Math.max(1, Math.floor(replicas));
  const perReplica = rates.has(name) ? whole / n : Math.max(1, Math.floor(whole / n));
  return { name, whole, replicas: n, perReplica };
}

/** `limit inFlightPerCaller 25 (50 over 2 replicas)`: the number this replica went by, and where it came from. */
export function describeShare({ name, whole, replicas, perReplica }: ReplicaShare): string {
  const shown = formatQuota(perReplica);
  return replicas === 1 ? `limit ${name} ${shown}` : `limit ${name} ${shown} (${formatQuota(whole)} over ${replicas} replicas)`;
}

export function formatQuota(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, "");
}

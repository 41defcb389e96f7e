// Each caller's bound on every request kind, counted when the request arrives, before it is queued:
// requests a second per kind (a token bucket holding one second's worth, so a burst of that many
// passes) and requests pending at once (waiting in the caller's lane or being handled, every kind
// together). Counted at arrival, a caller's requests are judged by when it sent them: when the
// bucket was taken at dequeue instead, a tenant sending its allowed 2 a second behind another
// tenant's backlog had its requests dequeued together and refused as a burst of its own.
//
// Each replica enforces its share of the caller's quotas for the service as a whole
// (src/tenants/quotas.ts). Pure but for the clock it is given.
import { describeShare, formatQuota, quotasOf, replicaShare, type Caller, type CallerQuotas, type QuotaName } from "../../tenants/index.js";
import type { RequestKind } from "../subjects.js";

export type ArrivalLimitsOptions = {
  /** Every caller's quotas for the service as a whole where its tenant's give none. */
  readonly defaults: CallerQuotas;
  /** Replicas sharing the quotas (serve --replicas). */
  readonly replicas: number;
  readonly now: () => number;
  /** The replica's request queue, every caller together, named in a pending refusal: how full the replica is. */
  readonly queue?: () => { readonly waiting: number; readonly maxWaiting: number };
};

/**
 * Who sent a request, as far as its subject says before it is read: the tenant its subject names
 * (with its quotas; none when the tenants file does not name it, and the request is refused once
 * handled) or the sole caller. `who` names it in refusals (`tenant TEAM_B`).
 */
export type ArrivingCaller = { readonly id: string; readonly who: string } & Pick<Caller, "quotas">;

export type ArrivalRefusal = { readonly code: "quota"; readonly limit: QuotaName; readonly message: string };
/** `done`: the request was answered; idempotent. */
export type Arrival = { readonly ok: true; readonly done: () => void } | { readonly ok: false; readonly refusal: ArrivalRefusal };

const rateOf = {
  observe: "requestsPerSecond",
  get: "getsPerSecond",
  cancel: "cancelsPerSecond",
  list: "listsPerSecond",
} as const satisfies Record<RequestKind, QuotaName>;

type Bucket = { tokens: number; refilledAtMs: number };
type CallerCounts = { pending: number; buckets: Map<RequestKind, Bucket> };

// Callers with nothing pending are forgotten past this many (their buckets start full again): the
// map stays bounded whatever tenant tokens arrive.
const rememberedCallers = 10_000;

export class ArrivalLimits {
  private readonly options: ArrivalLimitsOptions;
  private readonly callers = new Map<string, CallerCounts>();

  constructor(options: ArrivalLimitsOptions) {
    this.options = options;
  }

  /** Requests of `callerId` pending now. */
  pendingOf(callerId: string): number {
    return this.callers.get(callerId)?.pending ?? 0;
  }

  /** A request of `kind` from `from`, counted (and its pending count held until `done`) or refused. */
  arrive(from: ArrivingCaller, kind: RequestKind): Arrival {
    const quotas = quotasOf(from, this.options.defaults);
    const { id: callerId, who } = from;
    const counts = this.countsOf(callerId);

    const pending = replicaShare("pendingPerCaller", quotas.pendingPerCaller, this.options.replicas);
    if (counts.pending >= pending.perReplica) {
      const queue = this.options.queue?.();
      const replica = queue === undefined ? "" : `; the replica's queue ${queue.waiting} of ${queue.maxWaiting}, every caller together`;
      return refuse("pendingPerCaller", `${who} has ${counts.pending} of ${formatQuota(pending.perReplica)} requests pending on this replica (${describeShare(pending)}${replica}); retry when some are answered`);
    }
    const rate = replicaShare(rateOf[kind], quotas[rateOf[kind]], this.options.replicas);
    const bucket = this.refilled(counts, kind, rate.perReplica);
    if (bucket.tokens < 1) {
      const burst = formatQuota(Math.max(1, rate.perReplica));
      return refuse(rate.name, `${who} has used ${burst} of ${burst} ${kind} requests a second on this replica (${describeShare(rate)}); retry in a second`);
    }
    bucket.tokens -= 1;
    counts.pending += 1;
    let answered = false;
    return {
      ok: true,
      done: () => {
        if (answered) return;
        answered = true;
        counts.pending -= 1;
        if (counts.pending === 0 && this.callers.size > rememberedCallers) this.callers.delete(callerId);
      },
    };
  }

  private countsOf(callerId: string): CallerCounts {
    let counts = this.callers.get(callerId);
    if (!counts) {
      counts = { pending: 0, buckets: new Map() };
      this.callers.set(callerId, counts);
    }
    return counts;
  }

  /** The bucket holds one second's worth (at least one request, so a rate below one a second still passes) and fills at `perSecond`. */
  private refilled(counts: CallerCounts, kind: RequestKind, perSecond: number): Bucket {
    const nowMs = this.options.now();
    const capacity = Math.max(1, perSecond);
    let bucket = counts.buckets.get(kind);
    if (!bucket) {
      bucket = { tokens: capacity, refilledAtMs: nowMs };
      counts.buckets.set(kind, bucket);
      return bucket;
    }
    const elapsedMs = Math.max(0, nowMs - bucket.refilledAtMs);
    bucket.tokens = Math.min(capacity, bucket.tokens + (elapsedMs / 1000) * perSecond);
    bucket.refilledAtMs = nowMs;
    return bucket;
  }
}

function refuse(limit: QuotaName, message: string): Arrival {
  return { ok: false, refusal: { code: "quota", limit, message } };
}

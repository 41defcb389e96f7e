// Admission: how many observations one caller may have in flight on this replica, decided before a
// request costs anything (a discovery lookup, a lease, a record). Two limits, each refusal a `quota`
// answer naming the limit and how full it is, and retryable: observations in flight on this
// replica (all callers together), and in flight per caller. Requests a second and requests pending
// are counted earlier, as each request arrives (src/bus/server/arrivalLimits.ts).
//
// A caller is an opaque id: the tenant's (tenants file), or the sole caller's without one; a
// tenant's own `inFlight` replaces the per-caller default. Observations adopted from another
// replica are counted (`track`), never refused: they were accepted already and must be decided.
//
// The per-caller limit is for the service as a whole: this replica takes its share of it
// (src/tenants/quotas.ts, `replicas`). The replica's own limit is this replica's alone: each
// replica's heartbeat renews only its own leases, which is the cost it bounds.
import { callerLabel, defaultCallerQuotas, describeShare, replicaShare, type Caller as TenantCaller } from "../../tenants/index.js";

export type AdmissionLimits = {
  /** Observations in flight on this replica, every caller together. */
  readonly inFlight: number;
  /** Observations in flight for one caller, on the service as a whole: the default of a tenant without its own. */
  readonly inFlightPerCaller: number;
  /** Replicas sharing the per-caller limit (serve --replicas). */
  readonly replicas: number;
};

export const defaultAdmissionLimits = {
  inFlight: 2_000,
  inFlightPerCaller: defaultCallerQuotas.inFlightPerCaller,
  replicas: 1,
} as const satisfies AdmissionLimits;

/** Ends what an admission counted; idempotent, so every path that ends an observation may call it. */
export type Release = () => void;

export type Refusal = { readonly code: "quota"; readonly limit: "inFlight" | "inFlightPerCaller"; readonly message: string };
export type Admitted = { readonly ok: true; readonly release: Release } | { readonly ok: false; readonly refusal: Refusal };

type Caller = { inFlight: number };

// Callers with nothing in flight are forgotten past this many: the map stays bounded whatever ids arrive.
const rememberedCallers = 10_000;

export class Admission {
  private readonly limits: AdmissionLimits;
  private readonly callers = new Map<string, Caller>();
  private total = 0;

  constructor(limits: Partial<AdmissionLimits> = {}) {
    this.limits = { ...defaultAdmissionLimits, ...limits };
  }

  /** Observations counted in flight now, every caller together. */
  get inFlight(): number {
    return this.total;
  }

  /** A new request of `from`: admitted with its release, or refused naming the limit. Its tenant's `inFlight` replaces the per-caller default. */
  admit(from: Pick<TenantCaller, "id" | "tenant" | "quotas">): Admitted {
    const caller = this.caller(from.id);
    const share = replicaShare("inFlightPerCaller", from.quotas?.inFlight ?? this.limits.inFlightPerCaller, this.limits.replicas);
    if (caller.inFlight >= share.perReplica) {
      return this.refuse(
        "inFlightPerCaller",
        `${callerLabel(from)} has ${caller.inFlight} of ${share.perReplica} observations in flight on this replica (${describeShare(share)}; the replica ${this.total} of ${this.limits.inFlight}); retry when some are decided`,
      );
    }
    if (this.total >= this.limits.inFlight) {
      return this.refuse("inFlight", `this replica has ${this.total} of ${this.limits.inFlight} observations in flight, every caller together (limit inFlight ${this.limits.inFlight}); retry when some are decided`);
    }
    return { ok: true, release: this.count(from.id, caller) };
  }

  /** Counts an observation this replica took over (adoption): never refused, since it was accepted before. */
  track(callerId: string): Release {
    return this.count(callerId, this.caller(callerId));
  }

  private count(callerId: string, caller: Caller): Release {
    caller.inFlight += 1;
    this.total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      caller.inFlight -= 1;
      this.total -= 1;
      if (caller.inFlight === 0 && this.callers.size > rememberedCallers) this.callers.delete(callerId);
    };
  }

  private caller(callerId: string): Caller {
    let caller = this.callers.get(callerId);
    if (!caller) {
      caller = { inFlight: 0 };
      this.callers.set(callerId, caller);
    }
    return caller;
  }

  private refuse(limit: Refusal["limit"], message: string): Admitted {
    return { ok: false, refusal: { code: "quota", limit, message } };
  }
}

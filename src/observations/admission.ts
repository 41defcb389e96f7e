// Admission: how much of this replica one caller may take, decided before a request costs anything
// (a discovery lookup, a lease, a record). Three limits, each refusal a `quota` answer naming the
// limit, and retryable: observations in flight on this replica (all callers together), in flight
// per caller, and new requests a second per caller (a token bucket holding one second's worth, so
// a burst of `requestsPerSecond` passes and the rest wait their turn).
//
// A caller is an opaque id: the tenant's (tenants file), or the sole caller's without one; a
// tenant's own quotas replace the per-caller defaults. Observations adopted from another replica are
// counted (`track`), never refused: they were accepted already and must be decided.
//
// "In flight" is per replica: the queue group spreads requests over replicas, so a service of N
// replicas takes up to N times the limit; each replica's heartbeat renews only its own leases,
// which is the cost the limit bounds (one KV write per lease every renewal interval).

export type Quotas = {
  /** Observations in flight for one caller on this replica. */
  readonly inFlightPerCaller: number;
  /** New observation requests a second for one caller (replays included: each costs a lookup). */
  readonly requestsPerSecond: number;
};

export type AdmissionLimits = Quotas & {
  /** Observations in flight on this replica, every caller together. */
  readonly inFlight: number;
};

export const defaultAdmissionLimits = {
  inFlight: 2_000,
  inFlightPerCaller: 500,
  requestsPerSecond: 50,
} as const satisfies AdmissionLimits;

/**
 * A tenant's quotas (the tenants file's `quotas`) as admission's per-caller limits: its `inFlight`
 * is that caller's observations in flight. What it leaves out stays the service's default.
 */
export function admissionQuotas(caller: { readonly quotas?: { readonly inFlight?: number; readonly requestsPerSecond?: number } | undefined }): Partial<Quotas> {
  const { inFlight, requestsPerSecond } = caller.quotas ?? {};
  return { ...(inFlight !== undefined && { inFlightPerCaller: inFlight }), ...(requestsPerSecond !== undefined && { requestsPerSecond }) };
}

/** Ends what an admission counted; idempotent, so every path that ends an observation may call it. */
export type Release = () => void;

export type Refusal = { readonly code: "quota"; readonly limit: keyof AdmissionLimits; readonly message: string };
export type Admitted = { readonly ok: true; readonly release: Release } | { readonly ok: false; readonly refusal: Refusal };

type Caller = { inFlight: number; tokens: number; refilledAtMs: number };

// Callers with nothing in flight are forgotten past this many (their bucket starts full again):
// the map stays bounded whatever ids arrive.
const rememberedCallers = 10_000;

export class Admission {
  private readonly limits: AdmissionLimits;
  private readonly now: () => number;
  private readonly callers = new Map<string, Caller>();
  private total = 0;

  constructor(limits: Partial<AdmissionLimits> = {}, now: () => number = Date.now) {
    this.limits = { ...defaultAdmissionLimits, ...limits };
    this.now = now;
  }

  /** Observations counted in flight now, every caller together. */
  get inFlight(): number {
    return this.total;
  }

  /** A new request of `callerId`: admitted with its release, or refused naming the limit. `quotas` (a tenant's) replace the per-caller defaults. */
  admit(callerId: string, quotas?: Partial<Quotas>): Admitted {
    const perCaller = { inFlightPerCaller: this.limits.inFlightPerCaller, requestsPerSecond: this.limits.requestsPerSecond, ...quotas };
    const caller = this.caller(callerId);
    this.refill(caller, perCaller.requestsPerSecond);
    if (caller.tokens < 1) {
      return this.refuse("requestsPerSecond", `caller ${callerId} sent more than ${perCaller.requestsPerSecond} observation requests a second (limit requestsPerSecond ${perCaller.requestsPerSecond}); retry in a second`);
    }
    caller.tokens -= 1;
    if (this.total >= this.limits.inFlight) {
      return this.refuse("inFlight", `${this.limits.inFlight} observations in flight on this replica (limit inFlight ${this.limits.inFlight}); retry when some are decided`);
    }
    if (caller.inFlight >= perCaller.inFlightPerCaller) {
      return this.refuse("inFlightPerCaller", `caller ${callerId} has ${caller.inFlight} observations in flight (limit inFlightPerCaller ${perCaller.inFlightPerCaller}); retry when some are decided`);
    }
    return { ok: true, release: this.count(callerId, caller) };
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
      caller = { inFlight: 0, tokens: Number.POSITIVE_INFINITY, refilledAtMs: this.now() };
      this.callers.set(callerId, caller);
    }
    return caller;
  }

  /** The bucket holds at most one second's worth of requests and fills at `perSecond`. */
  private refill(caller: Caller, perSecond: number): void {
    const nowMs = this.now();
    const elapsedMs = Math.max(0, nowMs - caller.refilledAtMs);
    caller.tokens = Math.min(perSecond, caller.tokens + (elapsedMs / 1000) * perSecond);
    caller.refilledAtMs = nowMs;
  }

  private refuse(limit: keyof AdmissionLimits, message: string): Admitted {
    return { ok: false, refusal: { code: "quota", limit, message } };
  }
}

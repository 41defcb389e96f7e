// What the event publisher holds until the stream has stored it (all of it while NATS is away),
// bounded in events and in bytes, and per tenant in bytes: the events of one tenant writing fast
// fill its own share, and the other tenants' progress still gets in. Stage and verdict events are
// always taken, past every bound: they are at most five an observation, observations are bounded
// by admission, and a verdict must never be lost to an outage (SPEC section 10). Progress and
// stall notices are what goes when a bound is reached; `get` still answers an observation's newest
// state from its record.

export type EventBufferLimits = {
  /** Events waiting, every tenant together: each holds a promise and its retries besides its body. */
  readonly maxEvents: number;
  /** Bytes of event bodies waiting, every tenant together. */
  readonly maxBytes: number;
  /** Bytes of one tenant's event bodies waiting (the events without a tenant count as one tenant). */
  readonly maxBytesPerTenant: number;
};

/** About 1 KB an event: 10,000 events are some 10 MB; 64 MiB holds the bodies that are larger. */
export const defaultEventBufferLimits: EventBufferLimits = { maxEvents: 10_000, maxBytes: 64 * 1024 ** 2, maxBytesPerTenant: 64 * 1024 ** 2 };

/** Each tenant an equal share of the bytes: what the service gives the publisher with a tenants file. */
export function eventBufferLimitsFor(tenants: number, limits: EventBufferLimits = defaultEventBufferLimits): EventBufferLimits {
  return { ...limits, maxBytesPerTenant: tenants > 0 ? Math.floor(limits.maxBytes / tenants) : limits.maxBytes };
}

/** Why a droppable event was not taken. */
export type BufferRefusal = "events" | "bytes" | "tenantBytes";

export class EventBuffer {
  readonly #limits: EventBufferLimits;
  readonly #bytesByTenant = new Map<string, number>();
  #events = 0;
  #bytes = 0;

  constructor(limits: EventBufferLimits = defaultEventBufferLimits) {
    this.#limits = limits;
  }

  /**
   * Takes an event of `bytes` for `tenant` (undefined: none), counted until release(); one that
   * must be kept is always taken, a droppable one only within every bound.
   */
  take(tenant: string | undefined, bytes: number, droppable: boolean): BufferRefusal | undefined {
    const key = tenant ?? "";
    const tenantBytes = this.#bytesByTenant.get(key) ?? 0;
    if (droppable) {
      if (this.#events >= this.#limits.maxEvents) return "events";
      if (this.#bytes + bytes > this.#limits.maxBytes) return "bytes";
      if (tenantBytes + bytes > this.#limits.maxBytesPerTenant) return "tenantBytes";
    }
    this.#events += 1;
    this.#bytes += bytes;
    this.#bytesByTenant.set(key, tenantBytes + bytes);
    return undefined;
  }

  release(tenant: string | undefined, bytes: number): void {
    const key = tenant ?? "";
    const left = (this.#bytesByTenant.get(key) ?? 0) - bytes;
    if (left > 0) this.#bytesByTenant.set(key, left);
    else this.#bytesByTenant.delete(key);
    this.#events -= 1;
    this.#bytes -= bytes;
  }

  get events(): number {
    return this.#events;
  }

  get bytes(): number {
    return this.#bytes;
  }

  bytesOf(tenant: string | undefined): number {
    return this.#bytesByTenant.get(tenant ?? "") ?? 0;
  }
}

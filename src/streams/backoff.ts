// Delays between failed attempts of a reflector: exponential, capped, jittered, and forgiven after
// a healthy stretch. Jitter matters because every informer of a service (and every replica of it)
// loses its watches together when the API server restarts; without it they all come back in the
// same instant, over and over.

export interface BackoffPolicy {
  /** Delay before the first retry, in milliseconds. */
  initialMs: number;
  /** Hard ceiling of any delay, jitter included. */
  maxMs: number;
  /** A failure this long after the previous one starts again from `initialMs`. */
  resetAfterMs: number;
  /** Fraction of the delay that is random: 0.5 draws each delay from [d/2, d]. */
  jitter: number;
}

/** client-go's reflector uses 800 ms doubling to 30 s and forgives after 2 minutes; so do we. */
export const defaultBackoffPolicy: BackoffPolicy = {
  initialMs: 800,
  maxMs: 30_000,
  resetAfterMs: 120_000,
  jitter: 0.5,
};

export interface Backoff {
  /** The delay before the next attempt, given the time of the failure (ms on the caller's clock). */
  next(now: number): number;
}

export function createBackoff(policy: BackoffPolicy, random: () => number = Math.random): Backoff {
  let failures = 0;
  let lastFailureAt: number | undefined;
  return {
    next(now) {
      if (lastFailureAt !== undefined && now - lastFailureAt >= policy.resetAfterMs) {
        failures = 0;
      }
      lastFailureAt = now;
      // The exponent stops growing once the cap is reached, so 2 ** failures never overflows.
      const base = Math.min(policy.maxMs, policy.initialMs * 2 ** failures);
      if (base < policy.maxMs) {
        failures += 1;
      }
      return base * (1 - policy.jitter * random());
    },
  };
}

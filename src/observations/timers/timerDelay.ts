/**
 * The longest delay a Node timer keeps: beyond it, setTimeout fires after 1 ms instead. An
 * absolute `deadline` may lie weeks ahead; its timer wakes at this bound and is set again.
 */
export const maxTimerDelayMs = 2 ** 31 - 1;

/** The delay of a timer due at `atMs`: never negative, never past what a Node timer keeps. */
export function timerDelay(atMs: number, nowMs: number): number {
  return Math.min(maxTimerDelayMs, Math.max(0, atMs - nowMs));
}

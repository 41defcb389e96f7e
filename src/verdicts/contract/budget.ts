// The budget rule of SPEC section 5, in one place: the service stores its result with the
// observation at acceptance, and the client reads it to know how long to wait for a verdict.
import type { ObservationRequest } from "./schemas.js";

/**
 * When the budget runs out: `timeoutSeconds` after `nowMs` (the moment the request was accepted)
 * or the absolute `deadline`, whichever comes first. The engine stores the result with the
 * observation so that a restart never restarts the clock; a replay's budget started earlier, so
 * for a client it ends no later than this.
 */
export function budgetDeadline(request: Pick<ObservationRequest, "timeoutSeconds" | "deadline">, nowMs: number): number {
  const candidates: number[] = [];
  if (request.timeoutSeconds !== undefined) candidates.push(nowMs + request.timeoutSeconds * 1000);
  if (request.deadline !== undefined) candidates.push(Date.parse(request.deadline));
  // The request schema requires one of them; a request without either has no time at all.
  return candidates.length === 0 ? nowMs : Math.min(...candidates);
}

/** The longest budget a request may ask for: `timeoutSeconds` and `deadline` alike. */
export const maxBudgetSeconds = 7 * 24 * 3600;

/**
 * Why a request's `deadline` is refused, or undefined: at most `maxBudgetSeconds` after `nowMs`,
 * as `timeoutSeconds` is bounded in the schema (which has no clock). A budget ends in the
 * observation's record, lease and the keys' TTL; an uncapped one would hold them for years.
 */
export function deadlineTooFar(request: Pick<ObservationRequest, "deadline">, nowMs: number): string | undefined {
  if (request.deadline === undefined) return undefined;
  return Date.parse(request.deadline) - nowMs > maxBudgetSeconds * 1000 ? "at most 7 days ahead (as timeoutSeconds)" : undefined;
}

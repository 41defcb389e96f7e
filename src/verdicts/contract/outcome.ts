// The one authority over an observation's outcome. Every decision goes through `transition`, so the
// guarantees hold by construction rather than by each caller's care: in_progress moves to exactly
// one terminal outcome, a terminal outcome never changes again, and so a cancel that came first
// stays a cancel when a failure shows up afterwards (the person's action is the better account of
// what happened).
import type { Outcome } from "./schemas.js";

export function isTerminal(outcome: Outcome): boolean {
  return outcome !== "in_progress";
}

/** The outcome after proposing `next`: `next` while in progress, otherwise `current` unchanged. */
export function transition(current: Outcome, next: Outcome): Outcome {
  return isTerminal(current) ? current : next;
}

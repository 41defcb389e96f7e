// APIService: settled on `Available=True` (local group versions are Available at once, reason
// Local). Anything else is pending with the aggregator's reason and message (MissingEndpoints,
// ServiceNotFound, FailedDiscoveryCheck), never failed: the backing pods usually come from the same
// apply and the condition clears when they are ready (Argo CD reads it the same way).
import { pending, readingReasons, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export function settleAPIService({ object }: RuleInput): ResourceReading {
  const available = object.status?.conditions?.find((c) => c.type === "Available");
  if (available === undefined) return pending(readingReasons.awaitingStatus, "the aggregator has not checked its availability yet");
  const text = available.message ?? `Available is ${available.status}`;
  if (available.status === "True") return settled(available.reason ? `${available.reason}: ${text}` : text);
  return pending(available.reason ?? "Unavailable", text);
}

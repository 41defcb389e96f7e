// PersistentVolume: serves once Available (free to bind) or Bound. Failed (its reclaim failed) is
// terminal with the controller's reason. Released, the state a Retain volume keeps after its
// claim was deleted, never binds again by itself: pending, with what a person must do.
import { failed, pending, readingReasons, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export function settlePersistentVolume({ object }: RuleInput): ResourceReading {
  const status = object.status ?? {};
  const phase = typeof status["phase"] === "string" ? status["phase"] : undefined;
  const message = typeof status["message"] === "string" ? status["message"] : undefined;
  if (phase === "Available" || phase === "Bound") return settled(phase);
  if (phase === "Failed") return failed(typeof status["reason"] === "string" ? status["reason"] : "Failed", message ?? "reclaim failed");
  if (phase === "Released") return pending("Released", "its claim was deleted; it binds again only once its claimRef is cleared");
  return pending(phase ?? readingReasons.awaitingStatus, message ?? "the volume controller has not made it available yet");
}

// StorageVersionMigration: a one-shot rewrite of every stored object of a resource, run by the
// controller manager's storage-version-migrator. Like a Job: settled on Succeeded=True, failed on
// Failed=True with the controller's reason, pending while Running (or before it starts).
import { failed, pending, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export function settleStorageVersionMigration({ object }: RuleInput): ResourceReading {
  const conditions = object.status?.conditions ?? [];
  const holding = (type: string) => conditions.find((c) => c.type === type && c.status === "True");
  const failure = holding("Failed");
  if (failure) return failed(failure.reason ?? "Failed", failure.message ?? "migration failed");
  const success = holding("Succeeded");
  if (success) return settled(success.message || "migration succeeded");
  const running = holding("Running");
  return pending(running?.reason ?? "NotStarted", running?.message ?? (running ? "migrating" : "the migrator has not started it yet"));
}

// CustomResourceDefinition: served once `Established=True`. Until then the API server answers 404
// for its custom resources, so a chart that creates a CRD and then its CRs must wait for it.
// `NamesAccepted=False` is terminal: another CRD already claims the plural, kind or a short name
// in the group, and nothing changes that but an edit (kstatus reads it the same way). While the
// names are checked, Established is False with reason Installing, which is pending.
import { failed, pending, readingReasons, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export function settleCustomResourceDefinition({ object }: RuleInput): ResourceReading {
  const conditions = object.status?.conditions ?? [];
  const names = conditions.find((c) => c.type === "NamesAccepted");
  if (names?.status === "False") return failed(names.reason ?? "NamesNotAccepted", names.message ?? "names not accepted");
  const established = conditions.find((c) => c.type === "Established");
  // Named: its message ("the initial names have been accepted") reads like NamesAccepted's.
  if (established?.status === "True") return settled(`Established=True${established.message ? `: ${established.message}` : ""}`);
  if (established === undefined) return pending(readingReasons.awaitingStatus, "the API server has not checked its names yet");
  return pending(established.reason ?? "NotEstablished", established.message ?? `Established is ${established.status}`);
}

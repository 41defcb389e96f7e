// What a stall notice says (issue 10: a rollout that stops moving is worth saying before the
// budget runs out, without failing it): the resources still pending, each with its last reading,
// lowest stage first as a timeout would name them.
import { describeResource } from "../contract/kinds.js";
import { resourceVerdict, type ObservationState } from "./observationState.js";
import type { ResourceVerdict } from "../contract/schemas.js";
import { formatDuration } from "../text/text.js";

export interface StallNotice {
  readonly waitingFor: ResourceVerdict[];
  readonly message: string;
}

export function stallNotice(state: ObservationState, stalledForMs: number): StallNotice {
  const waitingFor: ResourceVerdict[] = [...state.resources.values()]
    .filter((resource) => resource.reading.state === "pending")
    .map(resourceVerdict);
  const waits = waitingFor.map((r) => `${describeResource(r.identity)}: ${r.reason === undefined ? "" : `${r.reason}: `}${r.message}`);
  const message = `deployment ${state.deployment} has not moved for ${formatDuration(stalledForMs)}, waiting for ${state.required}: ${waits.join("; ") || "nothing pending"}`;
  return { waitingFor, message };
}

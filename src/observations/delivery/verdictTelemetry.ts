// What a decided observation leaves in metrics and logs: one verdict line carrying the
// observation id, deployment and the deciding resource's kind, name and reason, never manifest
// content; counters labelled by bounded values only.
import type { Logger } from "../../logging/index.js";
import { describeResource, type ObservationState, type ObservationVerdict } from "../../verdicts/index.js";
import type { EngineMetrics } from "../telemetry.js";

export function recordVerdict(state: ObservationState, verdict: ObservationVerdict, nowMs: number, metrics: EngineMetrics, logger: Logger): void {
  metrics.observationDecided(state.required, state.outcome, (nowMs - state.startedAtMs) / 1000);
  if (state.window) metrics.verificationEnded(state.outcome);
  if (verdict.failure) metrics.resourceFailed(verdict.failure.resource.kind, verdict.failure.reason, verdict.tenant);
  logger.info(
    {
      observationId: state.observationId,
      deployment: state.deployment,
      outcome: verdict.outcome,
      required: verdict.required,
      reached: verdict.reached,
      ...(verdict.failure && { failure: { resource: describeResource(verdict.failure.resource), reason: verdict.failure.reason } }),
    },
    "verdict",
  );
}

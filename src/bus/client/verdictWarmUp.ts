// The first verdict a process parses pays for compiling the code that parses it: zod 4 compiles
// each object schema's parser on its first use (new Function), and V8 compiles the functions on the
// way lazily. In `stagewatch observe` that first use was the verdict's own arrival: 5 to 15 ms
// between its notice reaching the process and the verdict resolving, more than the service took to
// decide and send it. So a client that starts following parses one verdict-shaped event while it
// waits (once per process, on a later turn of the event loop), and the real one takes the warm path.
import { ObservationEvent } from "../../verdicts/contract/schemas.js";
import { parseWith } from "../../verdicts/contract/validation.js";

const at = "2026-01-01T00:00:00.000Z";
/** Shaped as the service's (an nkeys public key, 64 bytes in base64url); it signs nothing. */
const signature = { key: `U${"A".repeat(55)}`, sig: "A".repeat(86) };

/** A verdict event as the service publishes one: every part of the schema a real verdict reaches. */
export const warmUpVerdictEvent: Extract<ObservationEvent, { type: "verdict" }> = {
  type: "verdict",
  observationId: "00000000-0000-4000-8000-000000000000",
  deployment: "warm-up",
  at,
  verdict: {
    observationId: "00000000-0000-4000-8000-000000000000",
    key: "warm-up",
    deployment: "warm-up",
    required: "healthy",
    reached: "applied",
    outcome: "failed",
    failure: {
      stage: "healthy",
      resource: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "warm-up" },
      reason: "ImagePullBackOff",
      message: "Back-off pulling image",
    },
    resources: [
      { identity: { apiVersion: "apps/v1", kind: "Deployment", namespace: "default", name: "warm-up" }, state: "failed", reason: "ImagePullBackOff", message: "Back-off pulling image" },
    ],
    message: "deployment warm-up cannot reach healthy",
    startedAt: at,
    deadline: at,
    decidedAt: at,
    history: {
      earlier: 3,
      stages: { healthy: { samples: 3, medianSeconds: 4, p90Seconds: 5, p95Seconds: 5, earlierSeconds: [3, 4, 5] } },
      comparison: { stage: "healthy", seconds: 4, samples: 3, medianSeconds: 4, p90Seconds: 5, fasterThan: 1, message: "healthy in 4s" },
    },
    signature,
  },
  signature,
};

let warmed = false;

/** Once per process: the verdict's parse compiled before a verdict is waited on. */
export function warmUpVerdictParsing(): void {
  if (warmed) return;
  warmed = true;
  setImmediate(() => parseWith(ObservationEvent, warmUpVerdictEvent));
}

// The engine's options with every default applied, once (ports.ts says what each option is). Apart
// from ports.ts because the defaults come from the rooms that use them (log tails, record
// compaction, admission), which import ports.ts themselves.
import { asyncScheduler } from "rxjs";
import { newObservationId } from "../bus/index.js";
import { silentLogger } from "../logging/index.js";
import { unsignedService } from "../signing/index.js";
import { defaultAdmissionLimits } from "./admission/admission.js";
import { defaultMaxLogReads } from "./logTails/logTails.js";
import { defaultMaxPayloadBytes, type ObservationEngineOptions } from "./ports.js";
import { eventsWithin, payloadReserveBytes } from "./records/recordCompaction.js";
import { noopEngineMetrics } from "./telemetry.js";

/** The options with every default applied, once. */
export type EngineSettings = Readonly<
  Required<Omit<ObservationEngineOptions, "warnings" | "podLogs" | "history" | "traces" | "failOn" | "analyses">> &
    Pick<ObservationEngineOptions, "warnings" | "podLogs" | "history" | "traces" | "failOn" | "analyses">
>;

export function engineSettings(options: ObservationEngineOptions): EngineSettings {
  return {
    scheduler: asyncScheduler,
    newObservationId,
    metrics: noopEngineMetrics,
    logger: silentLogger,
    decidedMemory: 10_000,
    healthChecks: new Map(),
    signer: unsignedService,
    maxPayloadBytes: defaultMaxPayloadBytes,
    maxLogReads: defaultMaxLogReads,
    ...options,
    admissionLimits: { ...defaultAdmissionLimits, ...options.admissionLimits },
    // Every event the engine publishes fits the server's max_payload (recordCompaction).
    events: eventsWithin(options.events, (options.maxPayloadBytes ?? defaultMaxPayloadBytes) - payloadReserveBytes, (options.signer ?? unsignedService).signVerdict),
  };
}

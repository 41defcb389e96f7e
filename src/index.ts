// The package's library entry, for apply tools written in TypeScript or JavaScript: the client
// that asks a running stagewatch service to observe, and the types of what it answers.
// (`stagewatch serve` and the rest of the command line live behind the `stagewatch` bin.)
export {
  activeTraceContext,
  connectObserver,
  createObserver,
  ObservationConflictError,
  ObservationRejectedError,
  ObserverInternalError,
  ObserverUnavailableError,
  NatsConfigError,
  VerdictVerificationError,
} from "./bus/index.js";
// Checking a verdict kept as evidence (`observe --verdict-file`), as `stagewatch verify` does.
export { checkVerdict, SigningKeyError, verifyKeysOf } from "./signing/index.js";
export type { Trust, VerifyKey } from "./signing/index.js";
export type { ObservationFollow, ObservationRun, Observer, ObserverOptions, TraceContextFields } from "./bus/index.js";
export { ObservationEvent, ObservationRequest, ObservationVerdict } from "./verdicts/index.js";
export type { Failure, LogTail, ObservationRequestInput, Outcome, Signature, Stage } from "./verdicts/index.js";

// stagewatch on NATS (SPEC section 7).
//
// Guarantees:
// - Every request on `<prefix>.observe|cancel|get` gets exactly one reply, from one replica (queue
//   group `stagewatch`): a result, or `{ok:false, error:{code, message, issues}}` naming the field.
//   A service that throws is answered `internal`; nothing a client sends stops the service.
// - Events of one observation are stored in the order the engine emitted them, on
//   `<prefix>.events.<deployment>.<observationId>`, kept by a JetStream stream (24 h by default), so
//   a client that follows an observation late still reads everything, its verdict included.
// - A verdict or stage event re-published (retry, second replica) is stored once (Nats-Msg-Id).
// - A request key is claimed once across replicas (KV create); same key and content is a replay.
// - Each observation in progress has a lease (KV, compare-and-swap) naming the replica that drives it.
export {
  busNames,
  defaultSubjectPrefix,
  InvalidSubjectTokenError,
  isSubjectToken,
  keysRequest,
  newObservationId,
  queueGroup,
  requestKinds,
  subjectPrefixFromEnv,
  subjectPrefixVariable,
} from "./subjects.js";
export type { AnsweredRequest, BusNames, RequestKind } from "./subjects.js";
export { contentHash, sha256Hex } from "./contentHash.js";
export { canonicalJson } from "../signing/canonicalForm.js";
export {
  describeNatsConfig,
  NatsConfigError,
  NatsConnectionConfig,
  NatsCredentialsError,
  natsConfigFromEnv,
  NatsTlsConfig,
  toConnectionOptions,
} from "./connectionOptions.js";
export type { NatsConnectionConfigInput } from "./connectionOptions.js";
export { noopBusMetrics, requestResults } from "./telemetry.js";
export type { BusMetrics, RequestResult } from "./telemetry.js";
export { decodeBody, errorReply, startRequestServer } from "./server/requestServer.js";
export { startKeysResponder } from "./server/keysResponder.js";
export type { KeysResponder, KeysResponderOptions } from "./server/keysResponder.js";
export { identifyCaller, requestInfoHeader, serviceImportReplyPrefix } from "./server/callerIdentity.js";
export type { ArrivedRequest, CallerIdentification } from "./server/callerIdentity.js";
export type { ObservationService, ObserveResult, RequestServer, RequestServerOptions } from "./server/requestServer.js";
export { defaultEventStreamOptions, ensureEventStream, EventStreamSetupError, planEventStreams } from "./stores/eventStream.js";
export type { EventStreamLayout, EventStreamOptions, PlannedEventStream } from "./stores/eventStream.js";
export { defaultEventBufferLimits, EventBuffer, eventBufferLimitsFor } from "./server/eventBuffer.js";
export type { BufferRefusal, EventBufferLimits } from "./server/eventBuffer.js";
export { defaultBucketMaxBytes, isCompareAndSwapConflict, isStoreFull, openKvBucket } from "./stores/kvBuckets.js";
export type { KvBucketOptions } from "./stores/kvBuckets.js";
export { Heartbeat, Lease, heartbeatKey, isHeartbeatKey, leaseHeldUntil, leaseStoreIn, openLeaseStore } from "./stores/leaseStore.js";
export type { HeartbeatChange, HeartbeatEntry, LeaseChange, LeaseEntry, LeaseStore, LeaseStoreOptions, LeaseWatch, LeaseWatchHandlers } from "./stores/leaseStore.js";
export { createEventPublisher, defaultPublishRetry, eventMessageId, retryDelayMs } from "./server/eventPublisher.js";
export type { EventPublisher, EventPublisherOptions, PublishOutcome, RetryPolicy } from "./server/eventPublisher.js";
export {
  KeyClaimContendedError,
  KeyClaimEntry,
  ObservationRecord,
  observationRecordsIn,
  openObservationRecords,
  RecordCorruptError,
} from "./stores/observationRecords.js";
export type { KeyClaim, ObservationRecords, ObservationRecordsOptions, RecordUpdate, StoredRecord } from "./stores/observationRecords.js";
export {
  errorFromReply,
  ObservationConflictError,
  ObservationRejectedError,
  ObserverInternalError,
  ObserverQuotaError,
  ObserverUnavailableError,
  VerdictVerificationError,
} from "./client/clientErrors.js";
export type { ObserverError } from "./client/clientErrors.js";
export { deploymentHistoriesIn, historyKey, historyTtlMs, HistoryContendedError, openDeploymentHistories } from "./stores/deploymentHistories.js";
export type { DeploymentHistories } from "./stores/deploymentHistories.js";
export { inProgressItem, leaseState, listInProgress, listVisible, readInProgress } from "./stores/inProgress.js";
export type { InProgressListing, InProgressObservation, LeaseState, LeaseTable, ListScope, UnreadableObservation } from "./stores/inProgress.js";
export { connectObserver, createObserver } from "./client/client.js";
export { keySources } from "./client/keyDiscovery.js";
export type { KeySource, Verification } from "./client/keyDiscovery.js";
export type { ObservationFollow, ObservationRun, Observer, ObserverOptions, ObserverSettings, TraceContextFields } from "./client/client.js";
export { activeTraceContext } from "./client/activeTraceContext.js";

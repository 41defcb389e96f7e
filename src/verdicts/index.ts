// The part of stagewatch that decides: the wire contract, per-kind rules, the observation reducer
// and credential scrubbing. Pure functions; no I/O and no clock but the times passed in. Imports
// nothing from streams or bus.
export {
  CancelReply,
  CancelRequest,
  Expectation,
  HistoryComparison,
  HistoryOutlook,
  StageEstimate,
  TraceParent,
  TraceState,
  historyLimit,
  DeploymentName,
  ErrorCode,
  ErrorReply,
  Failure,
  FieldIssue,
  LogTail,
  GetReply,
  GetRequest,
  NamespaceName,
  ObservationEvent,
  ObservationId,
  ObservationRequest,
  ObservationVerdict,
  ObserveReply,
  Outcome,
  ProgressEvent,
  ReachedStage,
  ResourceIdentity,
  ResourceState,
  ResourceVerdict,
  Signature,
  Stage,
  StageEvent,
  StalledEvent,
  VerdictEvent,
  defaultAbsentGraceSeconds,
  defaultStallSeconds,
  defaultFailOn,
  errorCodes,
  maxBodyBytes,
  maxResources,
  outcomes,
  stages,
} from "./schemas.js";
export type { ObservationRequestInput } from "./schemas.js";
export { describeIssues, formatPath, parseWith } from "./validation.js";
export type { Parsed } from "./validation.js";

export { bootstrapLabel, isBootstrapJob } from "./bootstrap.js";
export { clusterScopedKinds, describeResource, groupKind, groupOf, identityKey, objectIdentityKey } from "./kinds.js";
export type { Identified } from "./kinds.js";
export { failed, pending, readingReasons, settled, shownMessage } from "./reading.js";
export { newestWarning, warningSlackMs, withWarning } from "./warnings.js";
export type { ResourceReading } from "./reading.js";
export { scrubCredentials } from "./scrub.js";
export type { HealthCheckCompileOptions } from "./rules/index.js";
export { formatDuration } from "./text.js";
export {
  HealthCheck,
  HealthCheckCompileError,
  HealthCheckConfig,
  builtInKinds,
  checkGeneric,
  compileHealthChecks,
  defaultCelCostLimit,
  describePodProblem,
  evaluateResource,
  existenceOnlyKinds,
  fallbackRule,
  healthCheckReasons,
  judgementOf,
  kindClasses,
  PodProblemTally,
  podProblems,
  ruleFor,
  rules,
  settleAPIService,
  settleByCommonSignals,
  settleCertificateSigningRequest,
  settleCronJob,
  settleCustomResourceDefinition,
  settleDaemonSet,
  settleDeployment,
  settleExisting,
  settleJob,
  settlePersistentVolume,
  settlePersistentVolumeClaim,
  settlePod,
  settleReplicaSet,
  settleService,
  settleStatefulSet,
  settleStorageVersionMigration,
} from "./rules/index.js";
export type { EvaluationInput, KindClass, KindJudgement, OwnedObjects, PodProblem, Rule, RuleInput } from "./rules/index.js";

export { cachedFieldsOf } from "./cachedFields.js";
export { entryKey, libraryEntries, libraryEntryFor, libraryRuleFor } from "./library/index.js";
export type { LibraryEntry } from "./library/index.js";
export { isTerminal, transition } from "./outcome.js";
export { blockedStage, stageRank, stagesBetween } from "./stages.js";
export type { StageFacts } from "./stages.js";
export { budgetDeadline, deadlineTooFar, maxBudgetSeconds } from "./budget.js";
export { notSeenYet, resolveNamespaces, startObservation } from "./observationState.js";
export type {
  ClusterScope,
  Decision,
  ObservationChange,
  ObservationState,
  ObservationStep,
  StartObservationInput,
  TrackedResource,
} from "./observationState.js";
export {
  advanceClock,
  cancelObservation,
  markCachesSynced,
  nextWakeAt,
  recordAccessProblem,
  recordDeletion,
  recordReading,
  toVerdict,
} from "./observation.js";
export type { AccessProblem, ObservedObject } from "./observation.js";
export { labelledBootstrapKeys, resumeObservation } from "./resumption.js";
export { stallNotice } from "./stall.js";
export { failingContainer } from "./failingContainer.js";
export type { LogChoice, LogTarget } from "./failingContainer.js";
export { logNoteOf, logTailLimits, logTailOf } from "./logTail.js";
export type { LogTailLimits } from "./logTail.js";
export type { StallNotice } from "./stall.js";
export type { ResumeObservationInput } from "./resumption.js";
export {
  DeploymentHistory,
  HistoryEntry,
  appendToHistory,
  autoStallQuantile,
  autoStallThreshold,
  compareWithHistory,
  emptyHistory,
  estimateStage,
  expectationMessage,
  expectationOf,
  formatRolloutTime,
  historyEntryOf,
  minAutoStallSamples,
  minAutoStallSeconds,
  nearestRank,
  outlookOf,
} from "./history.js";
export type { DecidedObservation } from "./timeline.js";
export type { AutoStallThreshold } from "./history.js";
export { Timeline, TimelineNotice, emptyTimeline, noteNotice, noteResource, noteStage, timelineNoticeLimit } from "./timeline.js";

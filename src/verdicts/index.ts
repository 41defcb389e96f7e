// The part of stagewatch that decides: the wire contract, per-kind rules, the observation reducer
// and credential scrubbing. Pure functions; no I/O and no clock but the times passed in. Imports
// nothing from streams or bus.
export {
  CancelReply,
  CancelRequest,
  ClusterName,
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
  VerdictAttestation,
  VerdictEvent,
  defaultAbsentGraceSeconds,
  defaultStallSeconds,
  defaultFailOn,
  defaultVerifyFailOn,
  Verification,
  VerifySettings,
  errorCodes,
  maxBodyBytes,
  maxResources,
  outcomes,
  stages,
} from "./contract/schemas.js";
export type { ObservationRequestInput } from "./contract/schemas.js";
export {
  DsseEnvelope,
  PredicateResource,
  StatementSubject,
  VerdictPredicate,
  VerdictStatement,
  inTotoPayloadType,
  inTotoStatementType,
  verdictPredicateType,
} from "./contract/attestation.js";
export { FailOnEntry, FailOnReason, GracedReason, failOnPolicy, failOnText, gracedReason, loosenedIssues, maxGraceSeconds } from "./contract/failOn.js";
export type { FailOnPolicy } from "./contract/failOn.js";
export { describeIssues, formatPath, parseWith } from "./contract/validation.js";
export type { Parsed } from "./contract/validation.js";

export { bootstrapLabel, isBootstrapJob } from "./reducer/bootstrap.js";
export { clusterScopedKinds, describeResource, groupKind, groupOf, identityKey, objectIdentityKey } from "./contract/kinds.js";
export type { Identified } from "./contract/kinds.js";
export { failed, pending, readingReasons, settled, shownMessage } from "./rules/reading.js";
export { newestWarning, warningSlackMs, withWarning } from "./rules/warnings.js";
export { withAutoscalerWord } from "./rules/autoscalerWord.js";
export type { ResourceReading } from "./rules/reading.js";
export { scrubCredentials } from "./text/scrub.js";
export { AnalysesFile, AnalysisTemplate, renderQuery, resolveArgs } from "./analysis/analysisTemplates.js";
export type { QueryBindings } from "./analysis/analysisTemplates.js";
export { addMeasurement, analysisStatus, noMeasurements } from "./analysis/measurements.js";
export type { AnalysisStatus, AnalysisTally, MeasuredValue } from "./analysis/measurements.js";
export { formatDuration } from "./text/text.js";
export {
  builtInKinds,
  checkGeneric,
  describePodProblem,
  existenceOnlyKinds,
  judgementOf,
  kindClasses,
  PodProblemTally,
  podProblems,
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
export type { KindClass, KindJudgement, OwnedObjects, PodProblem, Rule, RuleInput } from "./rules/index.js";
export { HealthCheck, HealthCheckCompileError, HealthCheckConfig, compileHealthChecks, healthCheckReasons } from "./cel/celHealthChecks.js";
export type { HealthCheckCompileOptions } from "./cel/celHealthChecks.js";
export { defaultCelCostLimit } from "./cel/celCost.js";
export { evaluateResource, fallbackRule, ruleFor, rules } from "./evaluation/registry.js";
export type { EvaluationInput } from "./evaluation/registry.js";

export { cachedFieldsOf } from "./evaluation/cachedFields.js";
export { entryKey, libraryEntries, libraryEntryFor, libraryRuleFor } from "./library/index.js";
export type { LibraryEntry } from "./library/index.js";
export { isTerminal, transition } from "./contract/outcome.js";
export { blockedStage, stageRank, stagesBetween } from "./contract/stages.js";
export type { StageFacts } from "./contract/stages.js";
export { budgetDeadline, deadlineTooFar, maxBudgetSeconds } from "./contract/budget.js";
export { notSeenYet, resolveNamespaces, startObservation } from "./reducer/observationState.js";
export type {
  ClusterScope,
  Decision,
  ObservationChange,
  ObservationState,
  ObservationStep,
  StartObservationInput,
  TrackedResource,
} from "./reducer/observationState.js";
export {
  advanceClock,
  cancelObservation,
  markCachesSynced,
  nextWakeAt,
  recordAccessProblem,
  recordDeletion,
  recordReading,
  recordMeasurement,
  nextMeasurements,
  recordSoakReading,
  toVerdict,
} from "./reducer/observation.js";
export type { AccessProblem, ObservedObject } from "./reducer/observation.js";
export type { DueMeasurement } from "./reducer/verificationWindow.js";
export { labelledBootstrapKeys, resumeObservation } from "./reducer/resumption.js";
export { stallNotice } from "./reducer/stall.js";
export { awaitingOwnedObjects } from "./evidence/awaitingOwnedObjects.js";
export { failingContainer } from "./evidence/failingContainer.js";
export type { LogChoice, LogTarget } from "./evidence/failingContainer.js";
export { logNoteOf, logTailLimits, logTailOf } from "./evidence/logTail.js";
export type { LogTailLimits } from "./evidence/logTail.js";
export type { StallNotice } from "./reducer/stall.js";
export type { ResumeObservationInput } from "./reducer/resumption.js";
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
} from "./history/history.js";
export type { DecidedObservation } from "./contract/timeline.js";
export type { AutoStallThreshold } from "./history/history.js";
export { Timeline, TimelineNotice, emptyTimeline, noteNotice, noteResource, noteStage, timelineNoticeLimit } from "./contract/timeline.js";

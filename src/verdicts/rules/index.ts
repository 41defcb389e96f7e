// Per-kind rules (SPEC section 4): one small function a kind, registered by `group/Kind`, run after
// the generic checks and before the fallback (commonSignals.ts).
export { settleAPIService } from "./apiservice.js";
export { builtInKinds, judgementOf, kindClasses } from "./builtInKinds.js";
export type { KindClass, KindJudgement } from "./builtInKinds.js";
export { HealthCheck, HealthCheckCompileError, HealthCheckConfig, compileHealthChecks, healthCheckReasons } from "./celHealthChecks.js";
export type { HealthCheckCompileOptions } from "./celHealthChecks.js";
export { defaultCelCostLimit } from "./celCost.js";
export { settleByCommonSignals } from "./commonSignals.js";
export { settleCronJob } from "./cronjob.js";
export { settleCustomResourceDefinition } from "./crd.js";
export { settleCertificateSigningRequest } from "./csr.js";
export { settleDaemonSet } from "./daemonset.js";
export { settleDeployment } from "./deployment.js";
export { existenceOnlyKinds, settleExisting } from "./existence.js";
export { checkGeneric } from "./genericChecks.js";
export { settleJob } from "./job.js";
export { describePodProblem, podProblems } from "./podProblems.js";
export { settlePod } from "./pod.js";
export { settlePersistentVolume } from "./pv.js";
export { settlePersistentVolumeClaim } from "./pvc.js";
export { evaluateResource, fallbackRule, ruleFor, rules } from "./registry.js";
export { settleReplicaSet } from "./replicaset.js";
export { settleService } from "./service.js";
export { settleStatefulSet } from "./statefulset.js";
export { settleStorageVersionMigration } from "./storageversionmigration.js";
export type { OwnedObjects, Rule, RuleInput } from "./input.js";
export type { PodProblem } from "./podProblems.js";
export type { EvaluationInput } from "./registry.js";

// Per-kind rules (SPEC section 4): one small function a kind, registered by `group/Kind` in
// ../evaluation/registry.ts, run after the generic checks and before the fallback (commonSignals.ts).
export { settleAPIService } from "./apiservice.js";
export { builtInKinds, judgementOf, kindClasses } from "./builtInKinds.js";
export type { KindClass, KindJudgement } from "./builtInKinds.js";
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
export { PodProblemTally } from "./podProblemTally.js";
export { settlePod } from "./pod.js";
export { settlePersistentVolume } from "./pv.js";
export { settlePersistentVolumeClaim } from "./pvc.js";
export { settleReplicaSet } from "./replicaset.js";
export { settleService } from "./service.js";
export { settleStatefulSet } from "./statefulset.js";
export { settleStorageVersionMigration } from "./storageversionmigration.js";
export type { OwnedObjects, Rule, RuleInput } from "./input.js";
export type { PodProblem } from "./podProblems.js";

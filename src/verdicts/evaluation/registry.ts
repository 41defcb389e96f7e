// Which rule reads which kind, keyed by `group/Kind` (core group written `core`). Evaluation runs
// the generic checks first, then the kind's rule: a configured health check, else the health
// library's entry (custom kinds), else the built-in rule; the documented fallback for every kind
// none of these covers (and the built-ins builtInKinds.ts classes as generic) is the common
// signals rule, which fails safe.
import type { ResourceReading } from "../rules/reading.js";
import { groupKind } from "../contract/kinds.js";
import { settleAPIService } from "../rules/apiservice.js";
import { settleByCommonSignals } from "../rules/commonSignals.js";
import { settleCronJob } from "../rules/cronjob.js";
import { settleCustomResourceDefinition } from "../rules/crd.js";
import { settleCertificateSigningRequest } from "../rules/csr.js";
import { settleDaemonSet } from "../rules/daemonset.js";
import { settleDeployment } from "../rules/deployment.js";
import { existenceOnlyKinds, settleExisting } from "../rules/existence.js";
import { libraryEntryFor, libraryRuleFor } from "../library/index.js";
import { checkGeneric } from "../rules/genericChecks.js";
import { readyImages } from "../evidence/readyImages.js";
import type { OwnedObjects, Rule, RuleInput } from "../rules/input.js";
import { settleJob } from "../rules/job.js";
import { settlePod } from "../rules/pod.js";
import { settlePersistentVolume } from "../rules/pv.js";
import { settlePersistentVolumeClaim } from "../rules/pvc.js";
import { settleReplicaSet } from "../rules/replicaset.js";
import { settleService } from "../rules/service.js";
import { settleStatefulSet } from "../rules/statefulset.js";
import { settleStorageVersionMigration } from "../rules/storageversionmigration.js";

export const rules: ReadonlyMap<string, Rule> = new Map<string, Rule>([
  ["apps/Deployment", settleDeployment],
  ["apps/StatefulSet", settleStatefulSet],
  ["apps/DaemonSet", settleDaemonSet],
  ["apps/ReplicaSet", settleReplicaSet],
  ["core/ReplicationController", settleReplicaSet],
  ["batch/Job", settleJob],
  ["batch/CronJob", settleCronJob],
  ["core/Pod", settlePod],
  ["core/Service", settleService],
  ["core/PersistentVolumeClaim", settlePersistentVolumeClaim],
  ["core/PersistentVolume", settlePersistentVolume],
  ["apiextensions.k8s.io/CustomResourceDefinition", settleCustomResourceDefinition],
  ["apiregistration.k8s.io/APIService", settleAPIService],
  ["certificates.k8s.io/CertificateSigningRequest", settleCertificateSigningRequest],
  ["storagemigration.k8s.io/StorageVersionMigration", settleStorageVersionMigration],
  ...existenceOnlyKinds.map((kind): [string, Rule] => [kind, settleExisting]),
]);

export const fallbackRule: Rule = settleByCommonSignals;

export function ruleFor(apiVersion: string, kind: string): Rule {
  return rules.get(groupKind(apiVersion, kind)) ?? fallbackRule;
}

export type EvaluationInput = Omit<RuleInput, "owned"> & {
  readonly owned?: OwnedObjects;
  /** Rules configured at start-up for custom kinds (compileHealthChecks); they decide before the built-in table. */
  readonly healthChecks?: ReadonlyMap<string, Rule> | undefined;
};

const nothingOwned: OwnedObjects = { replicaSets: [], pods: [] };

/** Reads one object: generic checks, then its kind's rule (a configured health check, the library's, its built-in rule, or the fallback). */
export function evaluateResource({ healthChecks, ...input }: EvaluationInput): ResourceReading {
  const full: RuleInput = { ...input, owned: input.owned ?? nothingOwned };
  const { apiVersion, kind } = full.object;
  const key = groupKind(apiVersion, kind);
  const configured = healthChecks?.get(key);
  // A failure read despite a lagging observedGeneration is the library's call, per entry: a
  // configured check's failed expression need not pin its conditions to the generation.
  const lagTolerant = configured === undefined && libraryEntryFor(key)?.failsBeforeObserving !== undefined ? libraryRuleFor(key) : undefined;
  const reading = checkGeneric(full, lagTolerant) ?? (configured ?? libraryRuleFor(key) ?? ruleFor(apiVersion, kind))(full);
  if (reading.state !== "settled") return reading;
  // What the settled workload runs goes into its verdict: it is read once, as it settles.
  const images = readyImages(full.object, full.owned);
  return images === undefined ? reading : { ...reading, images };
}

// What stagewatch must know of a built-in kind before any rule reads an object of it, in one
// table: what its controller owns (so its pods, and a Deployment's ReplicaSets, are watched,
// joined and routed to it), whether it is read as metadata only (its body never enters the
// process), and whether it lives outside namespaces. The engine's routing and refusals, the
// informers, the failing-container choice, the log tails and the scope of identities all read
// it; none keeps a list of its own, so they cannot drift apart (a ReplicationController whose pods
// the rule read but the engine never routed waited out its budget on an ImagePullBackOff).
// Kinds of custom resources have no facts here: discovery gives their scope, and they own nothing
// stagewatch joins.

export interface KindFacts {
  /**
   * What it controls and its rule reads: `pods` it is the controller of, or `replicaSets` and the
   * pods of those (a Deployment). Joined by controller ownerReference UID, never by selector.
   */
  readonly owns?: "pods" | "replicaSets";
  /** Listed and watched as metadata only: no status, and a body no rule reads (data, tokens, RBAC rules). */
  readonly metadataOnly?: true;
  /** Outside namespaces: a declared one never takes the request's defaultNamespace. */
  readonly clusterScoped?: true;
}

const ownsPods = { owns: "pods" } as const;
const metadataOnly = { metadataOnly: true } as const;
const clusterScoped = { clusterScoped: true } as const;

export const kindFacts: ReadonlyMap<string, KindFacts> = new Map<string, KindFacts>([
  ["apps/Deployment", { owns: "replicaSets" }],
  ["apps/ReplicaSet", ownsPods],
  ["core/ReplicationController", ownsPods],
  ["apps/StatefulSet", ownsPods],
  ["apps/DaemonSet", ownsPods],
  ["batch/Job", ownsPods],

  ["core/ConfigMap", metadataOnly],
  ["core/Secret", metadataOnly],
  ["core/ServiceAccount", metadataOnly],
  ["rbac.authorization.k8s.io/Role", metadataOnly],
  ["rbac.authorization.k8s.io/RoleBinding", metadataOnly],
  ["rbac.authorization.k8s.io/ClusterRole", { ...metadataOnly, ...clusterScoped }],
  ["rbac.authorization.k8s.io/ClusterRoleBinding", { ...metadataOnly, ...clusterScoped }],

  ["core/Namespace", clusterScoped],
  ["core/Node", clusterScoped],
  ["core/PersistentVolume", clusterScoped],
  ["apiextensions.k8s.io/CustomResourceDefinition", clusterScoped],
  ["apiregistration.k8s.io/APIService", clusterScoped],
  ["admissionregistration.k8s.io/MutatingWebhookConfiguration", clusterScoped],
  ["admissionregistration.k8s.io/ValidatingWebhookConfiguration", clusterScoped],
  ["admissionregistration.k8s.io/ValidatingAdmissionPolicy", clusterScoped],
  ["admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding", clusterScoped],
  ["admissionregistration.k8s.io/MutatingAdmissionPolicy", clusterScoped],
  ["admissionregistration.k8s.io/MutatingAdmissionPolicyBinding", clusterScoped],
  ["storage.k8s.io/StorageClass", clusterScoped],
  ["storage.k8s.io/CSIDriver", clusterScoped],
  ["storage.k8s.io/CSINode", clusterScoped],
  ["storage.k8s.io/VolumeAttachment", clusterScoped],
  ["storage.k8s.io/VolumeAttributesClass", clusterScoped],
  ["scheduling.k8s.io/PriorityClass", clusterScoped],
  ["networking.k8s.io/IngressClass", clusterScoped],
  ["networking.k8s.io/IPAddress", clusterScoped],
  ["networking.k8s.io/ServiceCIDR", clusterScoped],
  ["node.k8s.io/RuntimeClass", clusterScoped],
  ["flowcontrol.apiserver.k8s.io/FlowSchema", clusterScoped],
  ["flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration", clusterScoped],
  ["certificates.k8s.io/CertificateSigningRequest", clusterScoped],
  ["certificates.k8s.io/ClusterTrustBundle", clusterScoped],
  ["resource.k8s.io/DeviceClass", clusterScoped],
  ["resource.k8s.io/ResourceSlice", clusterScoped],
  ["resource.k8s.io/DeviceTaintRule", clusterScoped],
  ["storagemigration.k8s.io/StorageVersionMigration", clusterScoped],
]);

const kindsWhere = (holds: (facts: KindFacts) => boolean | undefined): string[] =>
  [...kindFacts].filter(([, facts]) => holds(facts)).map(([kind]) => kind);

/** Kinds whose rule reads the pods they control (through ReplicaSets, for a Deployment). */
export const podOwningKinds: ReadonlySet<string> = new Set(kindsWhere((facts) => facts.owns !== undefined));

/** Kinds whose pods are owned through ReplicaSets in between: their ReplicaSets are watched too. */
export const replicaSetOwningKinds: ReadonlySet<string> = new Set(kindsWhere((facts) => facts.owns === "replicaSets"));

/**
 * Owned kinds routed up to the workload controlling them, by controller UID: pods, and the
 * ReplicaSets between a Deployment and its pods. By group too: a custom kind may be called `Pod`.
 */
export const routedOwnedKinds: ReadonlySet<string> = new Set(["core/Pod", "apps/ReplicaSet"]);

export const metadataOnlyKinds: ReadonlySet<string> = new Set(kindsWhere((facts) => facts.metadataOnly));

export const clusterScopedKinds: ReadonlySet<string> = new Set(kindsWhere((facts) => facts.clusterScoped));

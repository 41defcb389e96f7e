// Every kind a Kubernetes 1.37 API server serves (list and watch; the create-only review kinds
// such as TokenReview cannot be observed), with how it is judged. The e2e discovery test fails on
// a served built-in kind missing here, so a new Kubernetes release cannot add a kind that is
// silently judged by the fallback. Three classes:
// - ruled: a rule of its own (registry.ts), from the kind's documented readiness signal;
// - existence: settled once it exists, because it has no status, or what its status reports is no
//   verdict on the apply (the reason says which);
// - generic: the common signals rule by design: a status written by its controller whose conditions
//   (or their absence) mean what the generic rule reads.
// Kinds of custom resources (CRDs, aggregated APIs) are generic unless the health library or a
// configured health check names them.

export const kindClasses = ["ruled", "existence", "generic"] as const;
export type KindClass = (typeof kindClasses)[number];

export interface KindJudgement {
  readonly judged: KindClass;
  /** Why this class: the status it has (or lacks) and what it means for an apply. */
  readonly why: string;
}

const ruled = (why: string): KindJudgement => ({ judged: "ruled", why });
const existence = (why: string): KindJudgement => ({ judged: "existence", why });
const generic = (why: string): KindJudgement => ({ judged: "generic", why });

const noStatus = "no status";
const createdByControllers = "written by controllers and the API server, not charts; nothing to wait for";

export const builtInKinds: ReadonlyMap<string, KindJudgement> = new Map<string, KindJudgement>([
  ["apps/Deployment", ruled("rollout: updated, available and ready replicas, no old ones left")],
  ["apps/StatefulSet", ruled("ready replicas and revisions; no conditions are written")],
  ["apps/DaemonSet", ruled("desired, updated, available and ready pods")],
  ["apps/ReplicaSet", ruled("declared on its own: ready = available = spec replicas, ReplicaFailure pending")],
  ["core/ReplicationController", ruled("the ReplicaSet rule: the same status fields")],
  ["batch/Job", ruled("Complete or SuccessCriteriaMet; Failed or FailureTarget terminal")],
  ["batch/CronJob", ruled("settled once it exists: its runs follow its schedule, not the apply")],
  ["core/Pod", ruled("Running and Ready, or Succeeded; terminal waiting reasons fail")],
  ["core/Service", ruled("exists; type LoadBalancer waits for status.loadBalancer.ingress")],
  ["core/PersistentVolumeClaim", ruled("Bound; Lost terminal")],
  ["core/PersistentVolume", ruled("Available or Bound; Failed terminal; Released pending")],
  ["storagemigration.k8s.io/StorageVersionMigration", ruled("Succeeded=True; Failed=True terminal; Running pending")],
  ["certificates.k8s.io/CertificateSigningRequest", ruled("Approved with a certificate issued; Denied or Failed terminal")],
  ["apiextensions.k8s.io/CustomResourceDefinition", ruled("Established=True; NamesAccepted=False terminal")],
  ["apiregistration.k8s.io/APIService", ruled("Available=True, otherwise pending with its reason")],

  ["core/ConfigMap", existence(`${noStatus}; read as metadata only`)],
  ["core/Secret", existence(`${noStatus}; read as metadata only`)],
  ["core/ServiceAccount", existence(`${noStatus}; read as metadata only`)],
  ["core/Endpoints", existence(noStatus)],
  ["core/LimitRange", existence(noStatus)],
  ["core/PodTemplate", existence(noStatus)],
  ["core/Event", existence(noStatus)],
  ["events.k8s.io/Event", existence(noStatus)],
  ["core/Namespace", existence("its status is only phase Active or Terminating, and a deletion is read from deletionTimestamp")],
  ["core/ResourceQuota", existence("its status is usage (used against hard), not readiness")],
  ["rbac.authorization.k8s.io/Role", existence(`${noStatus}; read as metadata only`)],
  ["rbac.authorization.k8s.io/RoleBinding", existence(`${noStatus}; read as metadata only`)],
  ["rbac.authorization.k8s.io/ClusterRole", existence(`${noStatus}; read as metadata only`)],
  ["rbac.authorization.k8s.io/ClusterRoleBinding", existence(`${noStatus}; read as metadata only`)],
  ["networking.k8s.io/NetworkPolicy", existence(noStatus)],
  ["networking.k8s.io/IngressClass", existence(noStatus)],
  [
    "networking.k8s.io/Ingress",
    existence("its address is written only by controllers configured to publish one (ingress-nginx --publish-service); waiting for it hangs on clusters whose controller does not"),
  ],
  ["networking.k8s.io/IPAddress", existence(`${noStatus}; ${createdByControllers}`)],
  ["discovery.k8s.io/EndpointSlice", existence(`${noStatus}; ${createdByControllers}`)],
  ["coordination.k8s.io/Lease", existence(noStatus)],
  ["apps/ControllerRevision", existence(`${noStatus}; ${createdByControllers}`)],
  [
    "policy/PodDisruptionBudget",
    existence("its status counts allowed disruptions, zero by design while its pods roll out; observedGeneration is still waited for"),
  ],
  [
    "autoscaling/HorizontalPodAutoscaler",
    existence("its conditions report metrics and scaling (ScalingActive=False on a cluster without metrics-server), not the apply; the target workload's rule reads the rollout"),
  ],
  ["scheduling.k8s.io/PriorityClass", existence(noStatus)],
  ["node.k8s.io/RuntimeClass", existence(noStatus)],
  ["storage.k8s.io/StorageClass", existence(noStatus)],
  ["storage.k8s.io/CSIDriver", existence(noStatus)],
  ["storage.k8s.io/CSINode", existence("registered by each node's kubelet and CSI drivers, not charts")],
  ["storage.k8s.io/CSIStorageCapacity", existence(`${noStatus}; ${createdByControllers}`)],
  ["storage.k8s.io/VolumeAttributesClass", existence(noStatus)],
  [
    "storage.k8s.io/VolumeAttachment",
    existence(`created by the attach-detach controller for a scheduled pod, not charts; the pod's rule reads whether its volumes came up`),
  ],
  ["admissionregistration.k8s.io/MutatingWebhookConfiguration", existence(noStatus)],
  ["admissionregistration.k8s.io/ValidatingWebhookConfiguration", existence(noStatus)],
  ["admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding", existence(noStatus)],
  ["admissionregistration.k8s.io/MutatingAdmissionPolicy", existence(noStatus)],
  ["admissionregistration.k8s.io/MutatingAdmissionPolicyBinding", existence(noStatus)],
  [
    "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
    existence("its status is the type checker's warnings, which never block the policy; observedGeneration is still waited for"),
  ],
  [
    "flowcontrol.apiserver.k8s.io/FlowSchema",
    existence("its only condition, Dangling, says whether the referenced priority level exists; requests fall back to catch-all meanwhile"),
  ],
  ["flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration", existence("no controller writes its status")],
  ["certificates.k8s.io/ClusterTrustBundle", existence(noStatus)],
  ["certificates.k8s.io/PodCertificateRequest", existence("created by the kubelet for a pod's projected certificate volume, not charts; the pod's rule reads whether it started")],
  ["resource.k8s.io/DeviceTaintRule", existence("its status reports the evictions it caused, not readiness")],
  ["resource.k8s.io/DeviceClass", existence(noStatus)],
  ["resource.k8s.io/ResourceClaimTemplate", existence(noStatus)],
  ["resource.k8s.io/ResourceSlice", existence(`${noStatus}; ${createdByControllers}`)],
  [
    "resource.k8s.io/ResourceClaim",
    existence("allocated only when a pod using it is scheduled; the pod's rule reads whether it started"),
  ],

  ["core/Node", generic("Ready condition written by the kubelet; nodes are registered, not applied")],
  ["networking.k8s.io/ServiceCIDR", generic("Ready condition written by the ServiceCIDR controller")],
]);

/** How a kind is judged: its built-in class, or generic for custom kinds. */
export function judgementOf(kindKey: string): KindJudgement {
  return builtInKinds.get(kindKey) ?? { judged: "generic", why: "a custom kind: the health library's entry, else the common signals rule" };
}

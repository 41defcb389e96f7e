// Kinds whose existence is all there is to observe: no controller reports progress on them, or
// what it reports is no verdict on the apply (a Service of type LoadBalancer waits for a cloud
// that a local cluster does not have; a PersistentVolumeClaim with WaitForFirstConsumer binding
// stays Pending until a pod uses it). Secrets and ConfigMaps are only ever read as metadata.
import { settled, type ResourceReading } from "../reading.js";

export const existenceOnlyKinds: readonly string[] = [
  "core/ConfigMap",
  "core/Secret",
  "core/Service",
  "core/ServiceAccount",
  "core/Namespace",
  "core/PersistentVolumeClaim",
  "core/Endpoints",
  "core/LimitRange",
  "core/ResourceQuota",
  "rbac.authorization.k8s.io/Role",
  "rbac.authorization.k8s.io/RoleBinding",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "networking.k8s.io/NetworkPolicy",
  "networking.k8s.io/Ingress",
  "networking.k8s.io/IngressClass",
  "policy/PodDisruptionBudget",
  "autoscaling/HorizontalPodAutoscaler",
  "scheduling.k8s.io/PriorityClass",
  "storage.k8s.io/StorageClass",
  "admissionregistration.k8s.io/MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
];

export function settleExisting(): ResourceReading {
  return settled("exists");
}

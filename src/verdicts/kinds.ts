// How stagewatch names resources in verdicts: identity keys, scope, the words verdict lines use.
// Kinds are named by their kind key (`core/Pod`, `apps/Deployment`), defined in src/kube/kinds.ts.
import { groupKind } from "../kube/kinds.js";

export { groupKind, groupOf } from "../kube/kinds.js";

export interface Identified {
  apiVersion: string;
  kind: string;
  namespace?: string | undefined;
  name: string;
}

/**
 * The one key of a declared resource, shared by the reducer and the engine that routes watch
 * events to it: `apps/Deployment/payments/api`, `rbac.authorization.k8s.io/ClusterRole/admin`.
 * Names and namespaces cannot contain '/', so the key is unambiguous within a kind.
 */
export function identityKey(identity: Identified): string {
  const where = identity.namespace ? `${identity.namespace}/${identity.name}` : identity.name;
  return `${groupKind(identity.apiVersion, identity.kind)}/${where}`;
}

/** The identity key of an object as the API server returned it. */
export function objectIdentityKey(obj: { apiVersion: string; kind: string; metadata: { namespace?: string; name: string } }): string {
  return identityKey({ apiVersion: obj.apiVersion, kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name });
}

/** `Deployment payments/api`, `ClusterRole admin`: how verdict lines name a resource. */
export function describeResource(identity: Identified): string {
  return `${identity.kind} ${identity.namespace ? `${identity.namespace}/` : ""}${identity.name}`;
}

/**
 * Built-in kinds that live outside namespaces. A declared resource of one of these never takes the
 * request's defaultNamespace (kubectl apply drops a namespace written on them, too). Kinds from
 * CRDs are unknown here: the engine passes what discovery says (`isClusterScoped`).
 */
export const clusterScopedKinds: ReadonlySet<string> = new Set([
  "core/Namespace",
  "core/Node",
  "core/PersistentVolume",
  "rbac.authorization.k8s.io/ClusterRole",
  "rbac.authorization.k8s.io/ClusterRoleBinding",
  "apiextensions.k8s.io/CustomResourceDefinition",
  "apiregistration.k8s.io/APIService",
  "admissionregistration.k8s.io/MutatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
  "storage.k8s.io/StorageClass",
  "storage.k8s.io/CSIDriver",
  "storage.k8s.io/VolumeAttachment",
  "scheduling.k8s.io/PriorityClass",
  "networking.k8s.io/IngressClass",
  "node.k8s.io/RuntimeClass",
  "flowcontrol.apiserver.k8s.io/FlowSchema",
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
  "certificates.k8s.io/CertificateSigningRequest",
]);

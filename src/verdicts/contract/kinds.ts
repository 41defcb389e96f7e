// How stagewatch names resources in verdicts: identity keys, scope, the words verdict lines use.
// Kinds are named by their kind key (`core/Pod`, `apps/Deployment`), defined in src/kube/kinds.ts.
import { groupKind } from "../../kube/kinds.js";

export { groupKind, groupOf } from "../../kube/kinds.js";
export { clusterScopedKinds } from "../../kube/kindFacts.js";

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

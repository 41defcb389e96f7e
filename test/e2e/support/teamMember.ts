/**
 * A member of a team as the API server knows one: a ServiceAccount of the team's namespace bound to
 * the built-in ClusterRoles a platform hands out (`edit` in the team's own namespace, `view` where
 * it may look), and a kubeconfig whose only credential is a token of it (TokenRequest, as the
 * kubelet asks one for a pod). What the member can do is then exactly what RBAC lets it.
 */
import { CoreV1Api, KubeConfig, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { kubeConfig } from "./cluster.ts";

export interface TeamMemberOptions {
  /** The ServiceAccount's namespace, where it gets `edit`. */
  namespace: string;
  name: string;
  /** Namespaces where it gets `view` as well. */
  viewing?: readonly string[];
}

/** The member's kubeconfig; the RoleBindings go with their namespaces. */
export async function teamMember(options: TeamMemberOptions): Promise<KubeConfig> {
  const admin = kubeConfig();
  const core = admin.makeApiClient(CoreV1Api);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  const { namespace, name } = options;
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const bind = (where: string, role: string) =>
    rbac.createNamespacedRoleBinding({
      namespace: where,
      body: {
        metadata: { name: `${name}-${role}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: [{ kind: "ServiceAccount", name, namespace }],
      },
    });
  await Promise.all([bind(namespace, "edit"), ...(options.viewing ?? []).map((where) => bind(where, "view"))]);
  const request = await core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const cluster = admin.getCurrentCluster();
  if (cluster === null) throw new Error("the e2e kubeconfig names no cluster");
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: "e2e" }],
    users: [{ name, token: request.status?.token ?? "" }],
    contexts: [{ name: "e2e", cluster: "e2e", user: name }],
    currentContext: "e2e",
  });
  return kc;
}

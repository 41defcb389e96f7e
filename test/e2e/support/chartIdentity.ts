/**
 * The chart's identity installed for real: the ServiceAccount, Roles and bindings a render holds
 * (its Deployment and Service stay out: kwok runs no containers), and a token for that
 * ServiceAccount from a TokenRequest, as the kubelet requests one for a pod.
 */
import { CoreV1Api, RbacAuthorizationV1Api, type KubernetesObject } from "@kubernetes/client-node";
import { applyObjects } from "../../cluster/helm.ts";
import { kubeConfig } from "./cluster.ts";

const identityKinds = ["ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"];

export interface ChartIdentity {
  /** The ServiceAccount's token (an hour's). */
  token: string;
  /** Deletes the cluster-scoped roles and bindings (the namespaced ones go with their namespaces). */
  remove(): Promise<void>;
}

export async function installChartIdentity(rendered: readonly KubernetesObject[], namespace: string): Promise<ChartIdentity> {
  const identity = rendered.filter((object) => identityKinds.includes(object.kind ?? ""));
  const rbac = kubeConfig().makeApiClient(RbacAuthorizationV1Api);
  const remove = async () => {
    for (const object of identity) {
      const name = object.metadata?.name ?? "";
      if (object.kind === "ClusterRole") await rbac.deleteClusterRole({ name }).catch(() => undefined);
      if (object.kind === "ClusterRoleBinding") await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
    }
  };
  await applyObjects(kubeConfig(), identity, { dryRun: false });
  const serviceAccount = identity.find((object) => object.kind === "ServiceAccount")?.metadata?.name;
  if (serviceAccount === undefined) throw new Error("the render holds no ServiceAccount");
  return { token: await serviceAccountToken(serviceAccount, namespace), remove };
}

/** An hour's token for a ServiceAccount, from a TokenRequest, as the kubelet requests one for a pod. */
export async function serviceAccountToken(name: string, namespace: string): Promise<string> {
  const request = await kubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  return request.status?.token ?? "";
}

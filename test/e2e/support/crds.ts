/**
 * Custom resource kinds for tests: a namespaced kind with an open schema and a status subresource,
 * created through the real API server and waited on until it is Established (served) and listed
 * by discovery.
 */
import { ApiException, ApiextensionsV1Api, type V1CustomResourceDefinition } from "@kubernetes/client-node";
import { kubeJson } from "../../cluster/kubeJson.ts";
import { eventually, kubeConfig } from "./cluster.ts";

export interface TestKind {
  group: string;
  kind: string;
  plural: string;
  /** `<plural>.<group>` */
  crdName: string;
  apiVersion: string;
}

export interface KindOptions {
  /**
   * Status as a subresource (default true), as controllers' CRDs have it: then status is written
   * through /status only. Without it a test can create an object with its status in one request.
   */
  statusSubresource?: boolean;
}

export function customResourceDefinition(group: string, kind: string, plural: string, options: KindOptions = {}): V1CustomResourceDefinition {
  return {
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          ...(options.statusSubresource !== false && { subresources: { status: {} } }),
          schema: { openAPIV3Schema: { type: "object", x_kubernetes_preserve_unknown_fields: true } },
        },
      ],
    },
  };
}

/** Creates the kind (an existing CRD of that name is kept) and waits until it is served. */
export async function installKind(group: string, kind: string, plural: string, options: KindOptions = {}): Promise<TestKind> {
  const crds = kubeConfig().makeApiClient(ApiextensionsV1Api);
  const body = customResourceDefinition(group, kind, plural, options);
  const crdName = body.metadata!.name!;
  try {
    await crds.createCustomResourceDefinition({ body });
  } catch (error) {
    if (!(error instanceof ApiException && error.code === 409)) throw error;
  }
  await eventually(`${crdName} established`, async () => {
    const crd = await crds.readCustomResourceDefinition({ name: crdName });
    return crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? crd : undefined;
  });
  // Established says the kind is stored and served. Its group version's discovery document, which
  // a client that looks a kind up before writing it reads (client-node's object API, kubectl, Helm),
  // is updated a moment later by another controller: an apply in between was answered 404.
  await eventually(`${group}/v1 discovery listing ${plural}`, async () => {
    const discovery = (await kubeJson(kubeConfig(), "GET", `/apis/${group}/v1`)) as { resources?: { name: string }[] };
    return discovery.resources?.some((resource) => resource.name === plural) ? true : undefined;
  });
  return { group, kind, plural, crdName, apiVersion: `${group}/v1` };
}

/** Deletes the kind and with it every object of it; already gone is fine. */
export async function removeKind(kind: Pick<TestKind, "crdName">): Promise<void> {
  const crds = kubeConfig().makeApiClient(ApiextensionsV1Api);
  await crds.deleteCustomResourceDefinition({ name: kind.crdName }).catch((error: unknown) => {
    if (!(error instanceof ApiException && error.code === 404)) throw error;
  });
}

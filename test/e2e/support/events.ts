/**
 * Warning events as the kubelet's recorder writes them (kwok runs no kubelet that would: no image
 * is pulled, no volume mounted), for tests that need one about a real pod.
 */
import type { CoreV1Event, V1Pod } from "@kubernetes/client-node";

export interface KubeletWarningOptions {
  reason: string;
  message: string;
  /** Where the Event is created; the pod's namespace by default. */
  namespace?: string;
  /** The namespace its involvedObject names; the Event's own by default, as the API server requires. */
  involvedNamespace?: string;
}

/** A Warning about `pod`, stamped now, under a name of its own. */
export function kubeletWarning(pod: V1Pod, options: KubeletWarningOptions): CoreV1Event {
  const now = new Date();
  const namespace = options.namespace ?? pod.metadata!.namespace!;
  const node = pod.spec?.nodeName ?? "kwok-node-0";
  return {
    metadata: { name: `${pod.metadata!.name}.${now.getTime().toString(16)}${Math.random().toString(16).slice(2, 6)}`, namespace },
    involvedObject: {
      apiVersion: "v1",
      kind: "Pod",
      namespace: options.involvedNamespace ?? namespace,
      name: pod.metadata!.name!,
      uid: pod.metadata!.uid!,
      resourceVersion: pod.metadata!.resourceVersion!,
    },
    reason: options.reason,
    message: options.message,
    source: { component: "kubelet", host: node },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    type: "Warning",
    reportingComponent: "kubelet",
    reportingInstance: node,
  };
}

// The Nodes of the local cluster: kwok plays their kubelet (it manages only Nodes with
// KWOK_NODE_ANNOTATION). The harness makes its two at start-up; a test may add one of its own (more
// CPU than the others, a taint only its pods tolerate) and delete it after.
import { KWOK_NODE_ANNOTATION, KWOK_NODE_ANNOTATION_VALUE } from "./faults.ts";

/** A Node kwok plays the kubelet of (KWOK_NODE_ANNOTATION); `capacity` and `taints` for a test's own node. */
export function kwokNode(name: string, options: { cpu?: string; taints?: readonly { key: string; value: string; effect: string }[] } = {}) {
  const resources = { cpu: options.cpu ?? "64", memory: "256Gi", pods: "1000" };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      annotations: { [KWOK_NODE_ANNOTATION]: KWOK_NODE_ANNOTATION_VALUE, "node.alpha.kubernetes.io/ttl": "0" },
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/role": "agent",
        "node-role.kubernetes.io/agent": "",
        type: "kwok",
      },
    },
    ...(options.taints && { spec: { taints: [...options.taints] } }),
    status: { allocatable: resources, capacity: resources },
  };
}

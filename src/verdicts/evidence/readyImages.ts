// What a settled workload runs, for the verdict as evidence (issue 17): the image digests
// (`containerStatuses[].imageID`, as the kubelet resolved them: `registry/app@sha256:...`) of its
// ready containers in its ready pods, the ones its rule counted. A tag says what was asked; the
// digest says what ran, and the signature then vouches for it. Only ready pods: a Job's completed
// pods and a rollout's old ones ran something, but not what the verdict is about.
import type { KubeObject, Pod } from "../../kube/objects.js";
import type { OwnedObjects } from "../rules/input.js";
import { podsOf } from "./workloadPods.js";

/** An image digest as it leaves the service: a status field any node writes, so bounded. */
const maxImageIdLength = 512;
/** At most this many digests a resource: a workload runs a handful of distinct images. */
const maxImages = 32;

const isReady = (pod: Pod) => pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

/** Sorted, distinct; undefined for a kind that owns no pods or when no ready container reports one. */
export function readyImages(object: KubeObject, owned: OwnedObjects): string[] | undefined {
  const pods = podsOf(object, owned);
  if (pods === undefined) return undefined;
  const images = new Set<string>();
  for (const pod of pods.filter(isReady)) {
    for (const container of pod.status?.containerStatuses ?? []) {
      const id = container.imageID;
      if (container.ready && id !== undefined && id !== "" && id.length <= maxImageIdLength) images.add(id);
    }
  }
  return images.size === 0 ? undefined : [...images].sort().slice(0, maxImages);
}

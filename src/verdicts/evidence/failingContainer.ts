// Which container's log explains a failure, decided from the objects the rules read: the one
// log read a failed observation may make (`logs: true`) goes to the container the verdict blames.
//
// - a failure from a pod problem (a `failOn` reason: CrashLoopBackOff, ImagePullBackOff, an init
//   container exiting non-zero) reads the first pod problem with that reason, in the order the
//   message names it (problemsOf: by pod name, init containers first);
// - a Job's own failure (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy) reads the last
//   failed pod's failed container, the one its message quotes the termination message of;
// - a container that terminated is read as it is; one waiting to restart (CrashLoopBackOff, or an
//   image pull failing after it ran once) has no log of its current instance, so its previous one
//   is read (`previous`); one that never ran has no log at all, which is said in a note instead.
// Anything else (NotFound, Forbidden, a custom resource's condition, a pod problem without a
// container such as Unschedulable) is not about a container: no log is read and nothing is said.
import type { ContainerStatus, Job, KubeObject, Pod } from "../../kube/objects.js";
import { ownedBy } from "../../ownership/index.js";
import { groupKind } from "../contract/kinds.js";
import { shownReason } from "../contract/reasons.js";
import { problemsOf } from "../rules/podProblems.js";
import type { OwnedObjects } from "../rules/input.js";
import type { Failure } from "../contract/schemas.js";
import { podsOf } from "./workloadPods.js";

export interface LogTarget {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly init: boolean;
  /** Read the previous instance's log: the current one is waiting to (re)start. */
  readonly previous: boolean;
}

/** A log to read, or why there is none to read although the failure is a container's. */
export type LogChoice = { readonly read: LogTarget } | { readonly note: string };

function statusOf(pod: Pod, container: string, init: boolean): ContainerStatus | undefined {
  const statuses = (init ? pod.status?.initContainerStatuses : pod.status?.containerStatuses) ?? [];
  return statuses.find((status) => status.name === container);
}

function choose(pod: Pod, status: ContainerStatus, init: boolean): LogChoice {
  const target = { namespace: pod.metadata.namespace ?? "default", pod: pod.metadata.name, container: status.name, init };
  const { state, lastState } = status;
  if (state?.terminated) return { read: { ...target, previous: false } };
  if (lastState?.terminated || status.restartCount > 0) return { read: { ...target, previous: true } };
  const which = init ? "init container" : "container";
  return { note: `no log: pod ${pod.metadata.name} ${which} ${status.name} has not run (${shownReason(state?.waiting?.reason || "waiting")})` };
}

function finishedAt(pod: Pod): string {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const times = statuses.map((s) => s.state?.terminated?.finishedAt).filter((t): t is string => t !== undefined);
  return times.toSorted().at(-1) ?? pod.metadata.creationTimestamp ?? "";
}

/** The last failed pod of a Job and its first container that exited non-zero, init containers first. */
function lastFailedContainer(job: Job, pods: readonly Pod[]): LogChoice | undefined {
  const last = ownedBy(job, pods)
    .filter((pod) => pod.status?.phase === "Failed")
    .toSorted((a, b) => finishedAt(a).localeCompare(finishedAt(b)))
    .at(-1);
  if (!last) return undefined;
  const failedIn = (statuses: ContainerStatus[] | undefined) =>
    statuses?.find((s) => s.state?.terminated !== undefined && s.state.terminated.exitCode !== 0);
  const init = failedIn(last.status?.initContainerStatuses);
  if (init) return choose(last, init, true);
  const container = failedIn(last.status?.containerStatuses);
  return container ? choose(last, container, false) : undefined;
}

/**
 * The container whose log to read for `failure`, given the failed resource's object as the
 * informers hold it and what it owns; undefined when the failure is not a container's (or the
 * object is gone).
 */
export function failingContainer(failure: Failure, object: KubeObject | undefined, owned: OwnedObjects): LogChoice | undefined {
  if (!object) return undefined;
  const pods = podsOf(object, owned);
  if (!pods) return undefined;
  const problem = problemsOf(pods).find((p) => p.reason === failure.reason && p.container !== undefined);
  if (problem) {
    const pod = pods.find((p) => p.metadata.name === problem.pod)!;
    const status = statusOf(pod, problem.container!, problem.init);
    if (status) return choose(pod, status, problem.init);
  }
  if (groupKind(object.apiVersion, object.kind) === "batch/Job") return lastFailedContainer(object as Job, pods);
  return undefined;
}

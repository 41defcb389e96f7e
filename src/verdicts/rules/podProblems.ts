// What is wrong with a pod, as the kubelet and scheduler wrote it: the detail a workload's message
// carries (`pod api-7f9c-x2 container api: ImagePullBackOff`), and the terminal reasons that fail
// it at once. Init containers come first: while one is stuck, the app containers only say
// PodInitializing. Reasons are taken as verdicts show them (reasons.ts) as they are read, so that
// failOn, the failing container's choice and the message all see the same word.
import type { Condition, ContainerStatus, Pod } from "../../kube/objects.js";
import { shownReason } from "../contract/reasons.js";
import { failed, type ResourceReading } from "./reading.js";
import { joinParts } from "../text/text.js";

export interface PodProblem {
  readonly pod: string;
  /** Undefined for pod-level problems (unschedulable, evicted). */
  readonly container?: string | undefined;
  readonly init: boolean;
  /** As a verdict shows it: the kubelet's or scheduler's word, or `UnreadableReason`. */
  readonly reason: string;
  readonly message?: string | undefined;
  /**
   * Since when the problem holds, by the pod's own condition: PodScheduled's lastTransitionTime for
   * an unplaced pod, Ready's for a container (Ready stays False through a crash loop's restarts and
   * turns True when the pod recovers). Undefined where the pod has no such condition.
   */
  readonly sinceMs?: number | undefined;
  /** A container's restarts so far, when it has restarted. */
  readonly restarts?: number | undefined;
}

// The kubelet's back-off messages repeat the image or container name and carry no cause
// ("Back-off pulling image ..."): the reason says it all.
const backOffReasons: ReadonlySet<string> = new Set(["ImagePullBackOff"]);

function containerProblem(pod: string, status: ContainerStatus, init: boolean, sinceMs: number | undefined): PodProblem | undefined {
  const { waiting, terminated } = status.state ?? {};
  const held = { ...(sinceMs !== undefined && { sinceMs }), ...(status.restartCount > 0 && { restarts: status.restartCount }) };
  if (waiting?.reason) {
    if (waiting.reason === "CrashLoopBackOff") {
      // The cause of a crash loop is the last termination, not the back-off message.
      const last = status.lastState?.terminated;
      const cause = last ? `last exit ${shownReason(last.reason || "Error")} with code ${last.exitCode}${last.message ? `: ${last.message}` : ""}` : undefined;
      return { pod, container: status.name, init, reason: waiting.reason, message: cause, ...held };
    }
    const message = backOffReasons.has(waiting.reason) ? undefined : waiting.message;
    return { pod, container: status.name, init, reason: shownReason(waiting.reason), message, ...held };
  }
  if (terminated && terminated.exitCode !== 0) {
    return { pod, container: status.name, init, reason: shownReason(terminated.reason || "Error"), message: terminated.message, ...held };
  }
  return undefined;
}

/** When a condition that is not True turned so, if the cluster wrote it. */
function falseSince(condition: Condition | undefined): number | undefined {
  if (condition === undefined || condition.status === "True" || condition.lastTransitionTime === undefined) return undefined;
  const ms = Date.parse(condition.lastTransitionTime);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The pod's problems, most fundamental first: scheduling, eviction, init containers, containers, readiness. */
export function podProblems(pod: Pod): PodProblem[] {
  const name = pod.metadata.name;
  const status = pod.status ?? {};
  const problems: PodProblem[] = [];
  const scheduled = status.conditions?.find((c) => c.type === "PodScheduled");
  if (scheduled?.status === "False") {
    const sinceMs = falseSince(scheduled);
    problems.push({ pod: name, init: false, reason: shownReason(scheduled.reason || "Unschedulable"), message: scheduled.message, ...(sinceMs !== undefined && { sinceMs }) });
  }
  const ready = status.conditions?.find((c) => c.type === "Ready");
  const notReadySince = falseSince(ready);
  if (status.phase === "Failed" && status.reason) {
    // An eviction's message names the resource, not the node (`The node was low on resource: memory. ...`).
    const node = pod.spec?.nodeName;
    const message = node && status.message ? `on node ${node}: ${status.message}` : status.message;
    problems.push({ pod: name, init: false, reason: shownReason(status.reason), message });
  }
  for (const init of status.initContainerStatuses ?? []) {
    const problem = containerProblem(name, init, true, notReadySince);
    if (problem) problems.push(problem);
  }
  for (const container of status.containerStatuses ?? []) {
    const problem = containerProblem(name, container, false, notReadySince);
    if (problem) problems.push(problem);
  }
  if (problems.length === 0 && status.phase === "Running" && ready?.status === "False") {
    problems.push({ pod: name, init: false, reason: shownReason(ready.reason || "ContainersNotReady"), message: ready.message });
  }
  return problems;
}

/**
 * The problem that fails its resource: one terminal at once before one with a grace, which the
 * reducer holds pending (a pod in ImagePullBackOff fails a rollout now, whatever its neighbour's
 * crash loop's grace), else the first in order.
 */
export function terminalProblem(problems: readonly PodProblem[], failOn: ReadonlySet<string>, graced: ReadonlySet<string> | undefined): PodProblem | undefined {
  const terminal = problems.filter((problem) => failOn.has(problem.reason));
  return terminal.find((problem) => !graced?.has(problem.reason)) ?? terminal[0];
}

/** The failure a failOn reason makes of a problem, with where and since when it holds (for its grace). */
export function problemFailure(summary: string, problem: PodProblem): ResourceReading {
  const { sinceMs, restarts } = problem;
  return failed(problem.reason, joinParts(summary, describePodProblem(problem)), {
    about: `Pod ${problem.pod}`,
    ...(sinceMs !== undefined && { sinceMs }),
    ...(restarts !== undefined && { restarts }),
  });
}

/** `pod api-7f9c-x2 container api: ImagePullBackOff`, `pod db-0: Unschedulable: 0/3 nodes are available: ...`. */
export function describePodProblem(problem: PodProblem): string {
  const where = problem.container ? ` ${problem.init ? "init container" : "container"} ${problem.container}` : "";
  return `pod ${problem.pod}${where}: ${problem.reason}${problem.message ? `: ${problem.message}` : ""}`;
}

/**
 * Each pod object's problems, judged once. The informers' caches replace a pod's object when it
 * changes and never change one in place, so a workload judged again on one pod's event judges that
 * pod and finds its other pods' problems here: the cost of a pod event is that pod, not the
 * workload's size. Weak: a pod replaced or deleted takes its entry with it.
 */
const judged = new WeakMap<Pod, PodProblem[]>();

/** The pod object's problems, judged on its first reading only. */
export function problemsOfPod(pod: Pod): PodProblem[] {
  let problems = judged.get(pod);
  if (problems === undefined) {
    problems = podProblems(pod);
    judged.set(pod, problems);
  }
  return problems;
}

/** The problems of the pods that still count: not being deleted, ordered by name for stable messages. */
export function problemsOf(pods: readonly Pod[]): PodProblem[] {
  // Only the pods with a problem are sorted: a workload's pods are judged on every event of any of
  // them, and most pods of a rollout have none.
  return pods
    .filter((pod) => pod.metadata.deletionTimestamp === undefined)
    .map((pod) => ({ name: pod.metadata.name, problems: problemsOfPod(pod) }))
    .filter(({ problems }) => problems.length > 0)
    .sort(byName)
    .flatMap(({ problems }) => problems);
}

/** SPEC's order of a workload's pod problems: by pod name, each pod's own in its order. */
export const byName = (a: { readonly name: string }, b: { readonly name: string }): number => a.name.localeCompare(b.name);

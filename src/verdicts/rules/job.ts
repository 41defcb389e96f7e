// Job: settled on Complete=True, or SuccessCriteriaMet=True (Kubernetes 1.31+ writes it first, and
// Complete only once the remaining pods have terminated). A running Job is pending, never current
// as kstatus's core reader has it: "has pods" is not "did its work". Failed=True is terminal with
// the controller's reason; FailureTarget=True (1.31+, written before the pods are cleaned up and
// Failed follows) is read the same way so the verdict does not wait for pod termination.
// The Job alone would wait forever on a pod stuck in ImagePullBackOff (the controller counts
// failed pods, not waiting ones), so an owned pod in a terminal state fails it too.
import type { Condition, Job, Pod } from "../../kube/objects.js";
import { ownedBy } from "../../ownership/index.js";
import { failed, pending, settled, type ResourceReading } from "./reading.js";
import { joinParts, listParts } from "../text/text.js";
import type { RuleInput } from "./input.js";
import { describePodProblem, problemFailure, problemsOf, terminalProblem } from "./podProblems.js";

function trueCondition(job: Job, ...types: readonly string[]): Condition | undefined {
  const conditions = job.status?.conditions ?? [];
  for (const type of types) {
    const condition = conditions.find((c) => c.type === type && c.status === "True");
    if (condition) return condition;
  }
  return undefined;
}

function finishedAt(pod: Pod): string {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const times = statuses.map((s) => s.state?.terminated?.finishedAt).filter((t): t is string => t !== undefined);
  return times.toSorted().at(-1) ?? pod.metadata.creationTimestamp ?? "";
}

/**
 * `pod schema-migrate-8q2lw container migrate: Error: relation "users" already exists`: what the
 * last failed pod's container wrote to its termination log (terminationMessagePath, or its log
 * tail with FallbackToLogsOnError), which is where a migration tool says why it gave up.
 */
function lastTerminationMessage(pods: readonly Pod[]): string | undefined {
  const last = pods.filter((pod) => pod.status?.phase === "Failed").toSorted((a, b) => finishedAt(a).localeCompare(finishedAt(b))).at(-1);
  if (!last) return undefined;
  const containers = [...(last.status?.initContainerStatuses ?? []), ...(last.status?.containerStatuses ?? [])];
  const container = containers.find((s) => s.state?.terminated?.message && s.state.terminated.exitCode !== 0);
  const terminated = container?.state?.terminated;
  if (!container || !terminated) return undefined;
  return describePodProblem({
    pod: last.metadata.name,
    container: container.name,
    init: (last.status?.initContainerStatuses ?? []).includes(container),
    reason: terminated.reason ?? "Error",
    message: terminated.message,
  });
}

/**
 * Finished pods, counted or not. The controller counts a finished pod in two writes: first its UID
 * goes to `uncountedTerminatedPods` (the same update sets SuccessCriteriaMet or FailureTarget),
 * and only once the pod's tracking finalizer is removed does it move into `succeeded` / `failed`.
 * Reading the counters alone, a Job that just met its completions reads "0/1 completions".
 */
function finished(job: Job, outcome: "succeeded" | "failed"): number {
  return (job.status?.[outcome] ?? 0) + (job.status?.uncountedTerminatedPods?.[outcome]?.length ?? 0);
}

export function settleJob({ object, owned, failOn, graced }: RuleInput): ResourceReading {
  const job = object as Job;
  const status = job.status ?? {};
  const succeeded = finished(job, "succeeded");
  const failedPods = finished(job, "failed");
  const completions = job.spec?.completions;
  const summary = listParts(
    // A work-queue Job (parallelism without completions) has no count to reach.
    completions === undefined ? `${succeeded} succeeded` : `${succeeded}/${completions} completions`,
    (status.active ?? 0) > 0 && `${status.active} active`,
    failedPods > 0 && `${failedPods} failed`,
  );
  const pods = ownedBy(job, owned.pods);
  const failure = trueCondition(job, "Failed", "FailureTarget");
  if (failure) return failed(failure.reason ?? "Failed", joinParts(failure.message ?? summary, lastTerminationMessage(pods)));
  if (trueCondition(job, "Complete", "SuccessCriteriaMet")) return settled(summary);
  // Finished pods are the Job's own bookkeeping (retries it counts); only running ones can be stuck.
  const problems = problemsOf(pods.filter((pod) => pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed"));
  const terminal = terminalProblem(problems, failOn, graced);
  if (terminal) return problemFailure(summary, terminal);
  const suspended = trueCondition(job, "Suspended");
  if (job.spec?.suspend || suspended) {
    return pending(suspended?.reason ?? "Suspended", joinParts(suspended?.message ?? "Job suspended", summary));
  }
  const [problem] = problems;
  return pending(problem?.reason, joinParts(summary, problem && describePodProblem(problem)));
}

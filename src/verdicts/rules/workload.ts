// The decision every pod-running workload shares once its own counts are read: a terminal pod
// fails it now (the controller would wait forever), complete counts settle it, anything else is
// pending with the first pod problem attached so a person sees why.
import type { Pod } from "../../kube/objects.js";
import { failed, pending, readingReasons, settled, type ResourceReading } from "../reading.js";
import { joinParts } from "../text.js";
import { describePodProblem, problemsOf } from "./podProblems.js";

export interface WorkloadProgress {
  /** `1/3 replicas ready, 3 updated`. */
  readonly summary: string;
  readonly complete: boolean;
  /** Pods that decide: owned by the workload (for a Deployment, by its current ReplicaSet). */
  readonly pods: readonly Pod[];
  readonly failOn: ReadonlySet<string>;
  /** Why the controller itself is held up, from its conditions: reason and message for the pending text. */
  readonly blockers?: readonly { readonly reason: string; readonly message: string }[];
}

export function judgeWorkload({ summary, complete, pods, failOn, blockers = [] }: WorkloadProgress): ResourceReading {
  const problems = problemsOf(pods);
  const terminal = problems.find((problem) => failOn.has(problem.reason));
  if (terminal) return failed(terminal.reason, joinParts(summary, describePodProblem(terminal)));
  if (complete) return settled(summary);
  const [problem] = problems;
  const reason = blockers[0]?.reason ?? problem?.reason;
  return pending(
    reason,
    joinParts(summary, ...blockers.map((b) => `${b.reason}: ${b.message}`), problem && describePodProblem(problem)),
  );
}

/** Built-in controllers always write status.observedGeneration; until they do, nothing is known. */
export function awaitingController(kind: string): ResourceReading {
  return pending(readingReasons.awaitingStatus, `the ${kind} controller has not reported status yet`);
}

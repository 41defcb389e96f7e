// The decision every pod-running workload shares once its own counts are read: a terminal pod
// fails it now (the controller would wait forever), complete counts settle it, anything else is
// pending with the first pod problem attached so a person sees why.
import type { KubeObject } from "../../kube/objects.js";
import { ownedBy } from "../../ownership/index.js";
import { pending, readingReasons, settled, type ResourceReading } from "./reading.js";
import { joinParts } from "../text/text.js";
import type { OwnedObjects } from "./input.js";
import { describePodProblem, problemFailure, problemsOf, terminalProblem, type PodProblem } from "./podProblems.js";

export interface WorkloadProgress {
  /** `1/3 replicas ready, 3 updated`. */
  readonly summary: string;
  readonly complete: boolean;
  /** The problems of the pods that decide: owned by the workload (for a Deployment, by its current ReplicaSet). */
  readonly problems: readonly PodProblem[];
  readonly failOn: ReadonlySet<string>;
  readonly graced?: ReadonlySet<string> | undefined;
  /** Why the controller itself is held up, from its conditions: reason and message for the pending text. */
  readonly blockers?: readonly { readonly reason: string; readonly message: string }[];
}

/** The problems of the pods `owner` controls, none without an owner (a Deployment before its ReplicaSet). */
export function problemsOwnedBy(owner: KubeObject | undefined, owned: OwnedObjects): readonly PodProblem[] {
  if (owner === undefined) return [];
  return owned.podProblemsOf ? owned.podProblemsOf(owner.metadata.uid) : problemsOf(ownedBy(owner, owned.pods));
}

export function judgeWorkload({ summary, complete, problems, failOn, graced, blockers = [] }: WorkloadProgress): ResourceReading {
  const terminal = terminalProblem(problems, failOn, graced);
  if (terminal) return problemFailure(summary, terminal);
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

// A Pod declared on its own (not one a workload owns: those are read by the workload's rule).
// Succeeded is settled; Running and Ready is settled. A container or init container waiting on a
// reason in failOn is terminal: ImagePullBackOff and InvalidImageName by default, because the
// kubelet retries them forever and a wrong image name does not fix itself; CrashLoopBackOff only
// when the request names it, since apps that crash until a dependency comes up are common.
// Phase Failed is terminal: the kubelet never restarts a pod out of it.
import type { Pod } from "../../kube/objects.js";
import { failed, pending, settled, type ResourceReading } from "./reading.js";
import { joinParts, listParts, plural } from "../text/text.js";
import type { RuleInput } from "./input.js";
import { describePodProblem, podProblems, problemFailure, terminalProblem } from "./podProblems.js";

function summaryOf(pod: Pod, phase: string): string {
  const statuses = pod.status?.containerStatuses ?? [];
  const total = pod.spec?.containers?.length ?? statuses.length;
  const ready = statuses.filter((s) => s.ready).length;
  const restarts = statuses.reduce((sum, s) => sum + s.restartCount, 0);
  return listParts(phase, `${ready}/${total} containers ready`, restarts > 0 && plural(restarts, "restart"));
}

export function settlePod({ object, failOn, graced }: RuleInput): ResourceReading {
  const pod = object as Pod;
  const phase = pod.status?.phase ?? "Pending";
  if (phase === "Succeeded") return settled(phase);
  const summary = summaryOf(pod, phase);
  const problems = podProblems(pod);
  const terminal = terminalProblem(problems, failOn, graced);
  if (terminal) return problemFailure(summary, terminal);
  const [problem] = problems;
  if (phase === "Failed") {
    return failed(pod.status?.reason ?? problem?.reason ?? "Failed", joinParts(summary, problem && describePodProblem(problem)));
  }
  const ready = pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
  if (phase === "Running" && ready) return settled(summary);
  return pending(problem?.reason, joinParts(summary, problem && describePodProblem(problem)));
}

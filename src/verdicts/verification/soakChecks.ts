// What fails the verification window (`require: verified`): the new revision's pods, read after
// `healthy`, showing a container restart, a readiness flap (Ready True -> False), an OOMKilled or
// Error termination, an eviction, or a Warning event of a reason in `verify.failOn`. Pure: the
// reducer passes the pods of one workload as its rule reads them (a Deployment's current
// ReplicaSet's, a Job's, a StatefulSet's or DaemonSet's own) and the window's start.
//
// The informer cache keeps no running container's startedAt and a condition's lastTransitionTime
// only while it is not True (streams/strip.ts), so what happened when is read from what it keeps:
// - a restart: `lastState.terminated.finishedAt` at or after the window's start (the kubelet writes
//   it with every restart); a pod created in the window that restarted at all restarted in it;
// - a failing termination: `state.terminated` with reason OOMKilled or Error, finished in the window;
// - a readiness flap: a pod seen ready in the window, now not ready. Not "every pod created before
//   the window": `healthy` is read off the workload's status, whose watch event may arrive before
//   its pods' (one informer each), so the cache can still hold a pod as not ready when the window
//   opens. A pod being deleted is not flapping: its end is the controller's or a person's choice;
// - an eviction: the kubelet's `status.reason: Evicted`, or a DisruptionTarget=True condition
//   (the eviction API, preemption, taint manager);
// - a Warning event: its lastTimestamp at or after the window's start, about one of these pods or
//   the workload itself.
// Without a timestamp (a flap, an eviction), the time is when the reading arrived: the line says
// how long after `healthy` stagewatch saw it. The kubelet's and the event recorder's timestamps
// are whole seconds, so the window counts from the second `healthy` was reached in: a restart in
// that same second fails the window rather than slip through as "before healthy".
import type { Condition, Pod } from "../../kube/objects.js";
import type { ClusterWarning } from "../../kube/warnings.js";
import { clean } from "../rules/reading.js";

/** One thing that ends the window, in the words of the verdict line. */
export interface SoakProblem {
  /** What it happened to, as the line names it: `pod api-7f9c6d8b5-x2k8p`, or `Deployment api` for a Warning about the workload. */
  readonly subject: string;
  readonly container?: string | undefined;
  /** The cluster's reason (OOMKilled, Error, Evicted, a Warning's reason); `Restarted` or `NotReady` where it wrote none. */
  readonly reason: string;
  /** What happened, between the pod (and container) and the time: `restarted (OOMKilled)`. */
  readonly happened: string;
  readonly atMs: number;
}

export interface SoakInput {
  /** The new revision's pods of one workload. */
  readonly pods: readonly Pod[];
  /** The UID of the workload itself: a Warning about it counts too. */
  readonly workloadUid: string;
  /** The newest Warning event about the workload and each object it owns, as the router hands them. */
  readonly warnings: readonly (ClusterWarning | undefined)[];
  readonly windowStartMs: number;
  readonly nowMs: number;
  readonly failOn: ReadonlySet<string>;
  /** UIDs of pods seen ready in the window: their Ready turning False is a flap. */
  readonly seenReady: ReadonlySet<string>;
}

export interface SoakReading {
  /** The earliest problem found, if any. */
  readonly problem?: SoakProblem | undefined;
  /** `seenReady` with the pods ready now. */
  readonly seenReady: ReadonlySet<string>;
  /** The names of the pods read. */
  readonly pods: readonly string[];
}

const failingTerminations: ReadonlySet<string> = new Set(["OOMKilled", "Error"]);

function timeOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

function condition(pod: Pod, type: string): Condition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

function withText(reason: string, message: string | undefined): string {
  const shown = message === undefined ? "" : clean(message);
  return shown === "" ? reason : `${reason}: ${shown}`;
}

function containerProblems(pod: Pod, createdInWindow: boolean, { windowStartMs, nowMs }: SoakInput): SoakProblem[] {
  const name = pod.metadata.name;
  return (pod.status?.containerStatuses ?? []).flatMap((container): SoakProblem[] => {
    const found: SoakProblem[] = [];
    const last = container.lastState?.terminated;
    const lastAt = timeOf(last?.finishedAt);
    const restartedInWindow = lastAt !== undefined ? lastAt >= windowStartMs : createdInWindow && container.restartCount > 0;
    if (restartedInWindow && container.restartCount > 0) {
      const reason = last?.reason ?? "Restarted";
      const exit = last === undefined ? "" : `, exit code ${last.exitCode}`;
      found.push({ subject: `pod ${name}`, container: container.name, reason, happened: `restarted (${reason}${exit})`, atMs: lastAt ?? nowMs });
    }
    const now = container.state?.terminated;
    const nowAt = timeOf(now?.finishedAt);
    if (now?.reason !== undefined && failingTerminations.has(now.reason) && (nowAt === undefined || nowAt >= windowStartMs)) {
      found.push({ subject: `pod ${name}`, container: container.name, reason: now.reason, happened: `terminated (${now.reason}, exit code ${now.exitCode})`, atMs: nowAt ?? nowMs });
    }
    return found;
  });
}

function podProblems(pod: Pod, input: SoakInput): SoakProblem[] {
  const { nowMs, seenReady } = input;
  const name = pod.metadata.name;
  const created = timeOf(pod.metadata.creationTimestamp);
  const createdInWindow = created !== undefined && created > input.windowStartMs;
  const found = containerProblems(pod, createdInWindow, input);
  if (pod.status?.reason === "Evicted") {
    found.push({ subject: `pod ${name}`, reason: "Evicted", happened: `was evicted (${withText("Evicted", pod.status.message)})`, atMs: nowMs });
  }
  const disruption = condition(pod, "DisruptionTarget");
  if (disruption?.status === "True" && pod.status?.reason !== "Evicted") {
    const reason = disruption.reason ?? "DisruptionTarget";
    found.push({ subject: `pod ${name}`, reason, happened: `is being evicted (${withText(reason, disruption.message)})`, atMs: nowMs });
  }
  const ready = condition(pod, "Ready");
  const wasReady = seenReady.has(pod.metadata.uid);
  const ending = pod.metadata.deletionTimestamp !== undefined || pod.status?.phase === "Succeeded";
  if (ready?.status !== "True" && wasReady && !ending && found.length === 0) {
    const reason = ready?.reason ?? "NotReady";
    found.push({ subject: `pod ${name}`, reason, happened: `readiness flapped (Ready True -> False, ${reason})`, atMs: nowMs });
  }
  return found;
}

function warningProblems({ pods, workloadUid, warnings, windowStartMs, failOn }: SoakInput): SoakProblem[] {
  const podUids = new Set(pods.map((pod) => pod.metadata.uid));
  return warnings.flatMap((warning): SoakProblem[] => {
    if (warning === undefined || !failOn.has(warning.reason) || warning.lastSeenMs < windowStartMs) return [];
    const { uid, kind, name } = warning.involved;
    if (uid !== workloadUid && !podUids.has(uid)) return [];
    const subject = kind === "Pod" ? `pod ${name}` : `${kind} ${name}`;
    return [{ subject, reason: warning.reason, happened: `had Warning ${withText(warning.reason, warning.message)}`, atMs: warning.lastSeenMs }];
  });
}

/** The window read once more: the earliest problem, and the pods it saw ready. */
export function readSoak(soak: SoakInput): SoakReading {
  const input = { ...soak, windowStartMs: Math.floor(soak.windowStartMs / 1000) * 1000 };
  const problems = [...input.pods.flatMap((pod) => podProblems(pod, input)), ...warningProblems(input)];
  const problem = problems.reduce<SoakProblem | undefined>((earliest, next) => (earliest === undefined || next.atMs < earliest.atMs ? next : earliest), undefined);
  const seenReady = new Set(input.seenReady);
  for (const pod of input.pods) if (condition(pod, "Ready")?.status === "True") seenReady.add(pod.metadata.uid);
  return { problem, seenReady, pods: input.pods.map((pod) => pod.metadata.name) };
}

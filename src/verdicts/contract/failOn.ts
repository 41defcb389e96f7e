// What a request's `failOn` means: which reasons are terminal, and how long each must hold first
// (issue 35). A plain reason is terminal at once, as before graces existed; `{reason, graceSeconds}`
// is terminal once the reason has held that long on the same object (reducer/reasonGrace.ts says
// what "held" reads). The wire keeps the object form rather than `Reason:2m` because a reason may
// itself hold a ':' (FailOnReason's alphabet); the command line's `Reason:2m` is parsed before it
// reaches the wire (cli/inputs/failOnFlag.ts).
import { z } from "zod";
import { formatDuration } from "../text/text.js";

/** A reason a request can name in failOn: what controllers write in a condition's reason (metav1.Condition's pattern, with dots). */
export const FailOnReason = z
  .string()
  .max(128, "at most 128 characters")
  .regex(/^[A-Za-z]([A-Za-z0-9_.,:-]*[A-Za-z0-9_])?$/, "must be a reason as controllers write it: a letter, then letters, digits, '_', '.', ',', ':' or '-' (e.g. 'ImagePullBackOff', 'ACK.Terminal')");

/** The longest grace a reason may be given: a day, longer than any budget a rollout is given. */
export const maxGraceSeconds = 24 * 3600;

export const GracedReason = z.strictObject({
  reason: FailOnReason,
  /** How long the reason must hold, continuously on the same object, before it is terminal (0: at once). */
  graceSeconds: z.int("must be a whole number of seconds").nonnegative("must be 0 (at once) or more").max(maxGraceSeconds, "at most 24 hours"),
});
export type GracedReason = z.infer<typeof GracedReason>;

export const FailOnEntry = z.union([FailOnReason, GracedReason], {
  error: "must be a reason ('ImagePullBackOff') or {reason, graceSeconds} ({\"reason\": \"CrashLoopBackOff\", \"graceSeconds\": 120})",
});
export type FailOnEntry = z.infer<typeof FailOnEntry>;

/** The entry as a grace: a plain reason holds for 0 seconds. */
export function gracedReason(entry: FailOnEntry): GracedReason {
  return typeof entry === "string" ? { reason: entry, graceSeconds: 0 } : entry;
}

/** The entry as the command line and the reasons table write it: `ImagePullBackOff`, `CrashLoopBackOff:2m0s`. */
export function failOnText(entry: FailOnEntry): string {
  const { reason, graceSeconds } = gracedReason(entry);
  return graceSeconds === 0 ? reason : `${reason}:${formatDuration(graceSeconds * 1000)}`;
}

/**
 * The same fact under two words. kube-scheduler's failure handler writes both at once: the pod's
 * `PodScheduled=False` condition with reason `Unschedulable` (what the pod shows for as long as it
 * stays unplaced) and a `FailedScheduling` Warning event (what `kubectl describe` and most docs
 * call it, and which the events.k8s.io recorder repeats only every 30 minutes). A request naming
 * either is terminal on either.
 */
const sameFact: ReadonlyMap<string, string> = new Map([
  ["FailedScheduling", "Unschedulable"],
  ["Unschedulable", "FailedScheduling"],
]);

/** The failOn entries as the reducer and the rules read them: the grace of each reason, in ms. */
export type FailOnPolicy = ReadonlyMap<string, number>;

/** The policy of a list of entries; a reason named twice keeps its first grace (the schema refuses it on the wire). */
export function failOnPolicy(entries: readonly FailOnEntry[]): FailOnPolicy {
  const policy = new Map<string, number>();
  for (const entry of entries) {
    const { reason, graceSeconds } = gracedReason(entry);
    for (const word of [reason, sameFact.get(reason)]) {
      if (word !== undefined && !policy.has(word)) policy.set(word, graceSeconds * 1000);
    }
  }
  return policy;
}

/** Issues for a reason named twice in one list (`failOn[2]: names CrashLoopBackOff again, as failOn[0] does`). */
export function repeatedReasons(entries: readonly FailOnEntry[]): { index: number; message: string }[] {
  const first = new Map<string, number>();
  return entries.flatMap((entry, index) => {
    const { reason } = gracedReason(entry);
    const earlier = first.get(reason);
    if (earlier === undefined) first.set(reason, index);
    return earlier === undefined ? [] : [{ index, message: `names ${reason} again, as failOn[${earlier}] does: one grace a reason` }];
  });
}

/**
 * What a request may not do to the service's failOn (serve --fail-on): drop a reason it names, or
 * give one a longer grace. Tightening is free (more reasons, shorter graces), so a team can fail
 * faster than the operator asks, never slower: the operator's list is what keeps a crash loop from
 * holding a shared service's observation for its whole budget.
 */
export function loosenedIssues(requested: readonly FailOnEntry[], service: readonly FailOnEntry[]): { path: string; message: string }[] {
  const asked = new Map(requested.map((entry, index) => [gracedReason(entry).reason, { index, graceSeconds: gracedReason(entry).graceSeconds }]));
  return service.flatMap((entry) => {
    const { reason, graceSeconds } = gracedReason(entry);
    const limit = `the service's failOn has ${failOnText(entry)} (serve --fail-on); a request may shorten a grace or add reasons, not loosen them`;
    const found = asked.get(reason);
    if (found === undefined) return [{ path: "failOn", message: `must name ${reason}: ${limit}` }];
    if (found.graceSeconds > graceSeconds) {
      const path = typeof requested[found.index] === "string" ? `failOn[${found.index}]` : `failOn[${found.index}].graceSeconds`;
      return [{ path, message: `at most ${graceSeconds} seconds for ${reason}: ${limit}` }];
    }
    return [];
  });
}

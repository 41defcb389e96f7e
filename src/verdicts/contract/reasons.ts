// The cluster's reasons as verdicts carry them. A reason is a key, not prose: requests match it in
// `failOn`, metrics label failures with it, people grep for it, and a verdict prints it beside the
// message that explains it. Kubernetes writes reasons as one CamelCase word (`ImagePullBackOff`,
// `CrashLoopBackOff`, `BackoffLimitExceeded`, `ProgressDeadlineExceeded`, `FailedCreate`,
// `OOMKilled`), and controllers of custom kinds mostly do too (Flux `ReconciliationSucceeded`,
// Crossplane `ReconcileError`); but a reason is whatever the writer of a status or an Event put
// there, and the API server checks it only for conditions of type metav1.Condition: nothing stops
// a megabyte, an escape sequence or a token in a pod's, an Event's or a custom resource's reason.
//
// A reason is kept when it has the shape the API server enforces where it checks one:
// metav1.Condition's `reason` pattern (`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`) with `.` and `-`
// added (dotted and hyphenated words some controllers write), at most the 128 characters
// events.k8s.io validation allows an Event's reason (metav1.Condition allows 1,024; no real reason
// comes near either). It is the shape `failOn` accepts, checked by that very schema (schemas.ts
// FailOnReason), so every reason a verdict carries can be named in a request, and a request's
// `failOn` matches exactly the reasons kept. A kept reason holds no space, quote or control
// character, so there is nothing to fold or strip; it is still scrubbed, since `ghp_...` or
// `password:hunter2` fit the shape.
//
// Any other reason becomes `UnreadableReason`, not a cut and cleaned version of itself: a cut
// reason is neither the word a `failOn` could name nor prose anyone can read, and a placeholder
// keeps the key space (metric labels, failOn, state-change comparisons) closed. The text is not
// lost where it matters: a condition without a message is shown with its reason in the message
// (signals.ts conditionWords), and messages are cut, scrubbed and stripped like all cluster text.
import { FailOnReason } from "./failOn.js";
import { scrubCredentials } from "../text/scrub.js";

/** The longest reason kept: events.k8s.io's limit for an Event's reason, FailOnReason's max. */
const maxReasonChars = FailOnReason.maxLength!;

/** What a verdict says in place of a reason that is not one, or that holds a credential. */
export const unreadableReason = "UnreadableReason";

/** Whether `text` has a reason's shape, the one failOn accepts; its length is checked first, so a megabyte costs nothing. */
export function isReasonShaped(text: string): boolean {
  return text.length <= maxReasonChars && FailOnReason.safeParse(text).success;
}

/** The reason as a verdict may carry it: the cluster's word when it is one and holds no credential, else `UnreadableReason`. */
export function shownReason(reason: string): string {
  if (!isReasonShaped(reason)) return unreadableReason;
  let shown = recentReasons.get(reason);
  if (shown === undefined) {
    // Dropped whole when full, as reading.ts's memo: what repeats now, not every reason seen.
    if (recentReasons.size >= memoizedReasons) recentReasons.clear();
    recentReasons.set(reason, (shown = scrubCredentials(reason) === reason ? reason : unreadableReason));
  }
  return shown;
}

// A rollout reads the same few reasons on every pod event; scrubbing each again would cost what
// reading.ts's message memo saves. Shaped reasons only, so at most 1,024 x 128 characters.
const memoizedReasons = 1_024;
const recentReasons = new Map<string, string>();

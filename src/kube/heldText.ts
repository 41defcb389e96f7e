// How much of a text the cluster wrote the process holds at all: a reason or message is whatever
// the writer of a status or an Event put there (a megabyte, if it likes: etcd takes 1.5 MB an
// object), and the informer caches and the warning index hold it for as long as the object lives.
// What leaves the service is cut shorter still (verdicts/rules/reading.ts: 1 KiB of a message, before
// it is scrubbed; verdicts/contract/reasons.ts: a reason of at most 128 characters, else UnreadableReason),
// so cutting here changes no verdict: a reason cut to maxHeldReasonChars is still longer than any
// kept one, and a message is shown from its first KiB.

/** Longer than any reason a verdict keeps, so a cut reason is still judged unreadable. */
export const maxHeldReasonChars = 256;

/** Four times what a verdict shows of a message. */
export const maxHeldTextChars = 4 * 1024;

/** The first `maxChars` UTF-16 units of `text`, without a lone half of a surrogate pair at the end. */
export function heldPrefix(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

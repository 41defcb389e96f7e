// Small pieces of the lines people read in verdicts.

type Part = string | undefined | false;

function present(parts: readonly Part[]): string[] {
  return parts.filter((part): part is string => typeof part === "string" && part !== "");
}

/** Joins the given parts of a message with "; ": summary first, then causes. */
export function joinParts(...parts: readonly Part[]): string {
  return present(parts).join("; ");
}

/** Joins the given parts of a summary with ", ": `1/3 replicas ready, 3 updated`. */
export function listParts(...parts: readonly Part[]): string {
  return present(parts).join(", ");
}

/**
 * At most `maxChars` characters of `text`, the last one `…` when some were cut. A cut never splits
 * a surrogate pair: half an emoji is not text any reader (or JSON Schema validator) accepts.
 */
export function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** `1 replica`, `2 replicas`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * A budget the way Go's time.Duration prints it (`5m0s`, `1h0m0s`, `45s`), because apply tools
 * in the Kubernetes world (kubectl, Helm, Argo CD) take and print timeouts that way. Rounded to
 * the second: a budget computed from a shared deadline is never a round number of milliseconds,
 * and `4m59.873s` tells a person nothing `5m0s` does not.
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

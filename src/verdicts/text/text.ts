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

// What a terminal, a log viewer or a CI page must never receive from the cluster, because it acts
// on them or hides text behind them:
// - whole ANSI escape sequences (ECMA-48): CSI, `ESC [` or U+009B then parameters and a final
//   byte (colours, cursor moves, erasing a line); OSC, `ESC ]` to BEL or `ESC \` (window titles,
//   hyperlinks whose target the terminal hides); and the other escapes of ESC and one character.
//   Removed whole, not only their ESC: a logger that colours its keys (`ESC[36mpassword ESC[0m=x`)
//   would otherwise leave `[36mpassword[0m=x`, which neither a person nor a scrubber pattern reads
//   as `password=x`;
// - C0 controls but tab and line feed (CR rewrites a line, BEL rings), DEL, C1 controls, and what
//   is left of an incomplete escape sequence;
// - every format character (Unicode category Cf): bidi embeddings, overrides and isolates
//   (U+202A-202E, U+2066-2069, the "Trojan Source" characters that show `ok` for `ko`), the bidi
//   marks U+200E, U+200F and U+061C, zero-width space, non-joiner and joiner (U+200B-200D), the
//   word joiner U+2060, the byte order mark U+FEFF, the soft hyphen, tag characters: all
//   invisible, and each one can split a word a scrubber pattern or a person would otherwise see.
// Line and paragraph separators (U+2028, U+2029) start a new line in some viewers, so they become
// a space: a line of cluster text stays one line, its words apart. Tab and line feed stay for
// whoever folds lines on purpose (a log tail splits on them, a reading joins them).
// Each pattern starts at an ESC (or U+009B) and scans a run no other start scans: linear.
const escapeSequence = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[ -/]*[0-~]/g;
const invisibleOrControl = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}]/gu;
const lineSeparators = /[\u2028\u2029]/g;

/** `text` without escape sequences, control and format characters; line and paragraph separators as spaces. */
export function withoutControlCharacters(text: string): string {
  return text.replace(escapeSequence, "").replace(invisibleOrControl, "").replace(lineSeparators, " ");
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

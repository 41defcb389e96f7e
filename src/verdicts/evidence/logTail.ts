// A container's log as the verdict carries it: the last few lines, each scrubbed like every other
// cluster text (a failing job prints its connection string as readily as its error) and cleared of
// control characters (a terminal that prints the verdict must not be driven by a container's
// escape sequences), bounded so a verdict stays a few KB in the record, the stream and the CLI.
import type { LogTarget } from "./failingContainer.js";
import type { LogTail } from "../contract/schemas.js";
import { scrubBounded, scrubCredentials, scrubLookahead } from "../text/scrub.js";
import { cut } from "../text/text.js";

export interface LogTailLimits {
  /** Lines kept, the newest (the read asks for one more, to know whether older ones exist). */
  readonly lines: number;
  /** The read's `limitBytes`: the kubelet stops there, so a body that long may end inside a line. */
  readonly bytes: number;
  /** Characters kept of one line, with the `…` that marks a cut. */
  readonly lineChars: number;
}

/** Enough for a stack trace's head or a migration tool's last statement and error. */
export const logTailLimits: LogTailLimits = { lines: 20, bytes: 16 * 1024, lineChars: 500 };

/** The tail of `text`, a `tailLines: lines + 1`, `limitBytes: bytes` read of `target`'s log. */
export function logTailOf(target: LogTarget, text: string, limits: LogTailLimits = logTailLimits): LogTail {
  const reachedLimit = new TextEncoder().encode(text).length >= limits.bytes;
  let lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let truncated = reachedLimit && !text.endsWith("\n");
  if (lines.length > limits.lines) {
    lines = lines.slice(-limits.lines);
    truncated = true;
  }
  // Each line cut to its bound (and the scrubber's lookahead, so a credential straddling the bound
  // is still seen whole), then the lines scrubbed together: a PEM key spans lines, and is redacted
  // as one (its lines become one `[redacted]`). Scrubbing removes the control characters (ESC [ ...
  // sequences lose their ESC and show as text) and keeps the line feeds the lines are joined by.
  const windowChars = limits.lineChars + scrubLookahead;
  if (lines.some((raw) => raw.length > windowChars)) truncated = true;
  const window = lines.map((raw) => raw.slice(0, windowChars));
  const scrubbed = window.length === 0 ? [] : scrubCredentials(window.join("\n")).split("\n");
  const kept = scrubbed.map((line) => {
    if (line.length <= limits.lineChars) return line;
    truncated = true;
    return cut(line, limits.lineChars);
  });
  return { pod: target.pod, container: target.container, init: target.init, previous: target.previous, lines: kept, truncated };
}

/** A note is one sentence; the server's part of it can be a whole response body. */
const maxNoteLength = 512;

/** `log of pod p container c not read: Forbidden: ...`, cut and scrubbed: the server's words may quote a token. */
export function logNoteOf(target: LogTarget, why: string): string {
  const which = `${target.init ? "init container" : "container"} ${target.container}${target.previous ? " (previous)" : ""}`;
  return scrubBounded(`log of pod ${target.pod} ${which} not read: ${why}`, maxNoteLength);
}

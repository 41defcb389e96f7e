// Basic-auth userinfo in URLs: `postgres://migrator:hunter2@db:5432/payments` ->
// `postgres://[redacted]@db:5432/payments`. Passwords are written into connection strings as they
// are, unencoded: `p@ss/w0rd` holds the `@` and `/` RFC 3986 reserves, and a user may be an email
// address. So the userinfo runs from `://` to the LAST `@` of the URL (the URL ending at whitespace,
// a quote or an angle bracket), provided that a `:` follows the user (before any `/`) and is not a
// port (`host:443/...`). Erring towards cutting: a path holding `@` after a userinfo loses its head.
//
// "The last `@` of the URL" is what no backtracking regex says in linear time: after each `://` it
// would scan to the end of the URL, and one URL-shaped run can hold thousands of `://`. This
// scanner reads each character a bounded number of times: the URL's end and its last `@` are found
// once per run of URL characters, and reused by every `://` inside that run.

const redacted = "[redacted]";

/** Whitespace, quotes, backtick and angle brackets end a URL in prose, logs, JSON and HTML. */
function endsUrl(code: number): boolean {
  return code <= 0x20 || code === 0x22 || code === 0x27 || code === 0x3c || code === 0x3e || code === 0x60 || code === 0x7f;
}

/** RFC 3986 scheme characters: letters, digits, `+`, `-`, `.`. */
function inScheme(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2b ||
    code === 0x2d ||
    code === 0x2e
  );
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** The text with the userinfo of every `scheme://user:password@` URL replaced by `[redacted]`. */
export function scrubUrlUserinfo(text: string): string {
  let out = "";
  let copied = 0;
  // The run of URL characters last measured: where it ends, and its last `@` (-1: none).
  let runEnd = -1;
  let lastAt = -1;
  let from = 0;
  for (let separator = text.indexOf("://"); separator !== -1; separator = text.indexOf("://", from)) {
    const userStart = separator + 3;
    from = userStart;
    if (separator === 0 || !inScheme(text.charCodeAt(separator - 1))) continue;
    // The user ends at the first `:`; a `/` first means there is no password (a path follows).
    let colon = userStart;
    for (; colon < text.length; colon++) {
      const code = text.charCodeAt(colon);
      if (code === 0x3a || code === 0x2f || endsUrl(code)) break;
    }
    // Stops at the next `:` at the latest, so user scans never overlap: every `://` starts with one.
    from = colon;
    if (text.charCodeAt(colon) !== 0x3a) continue;
    let afterPort = colon + 1;
    while (afterPort < text.length && isDigit(text.charCodeAt(afterPort))) afterPort++;
    if (afterPort > colon + 1 && (afterPort === text.length || text.charCodeAt(afterPort) === 0x2f || endsUrl(text.charCodeAt(afterPort)))) {
      continue;
    }
    if (colon >= runEnd) {
      lastAt = -1;
      for (runEnd = colon; runEnd < text.length && !endsUrl(text.charCodeAt(runEnd)); runEnd++) {
        if (text.charCodeAt(runEnd) === 0x40) lastAt = runEnd;
      }
    }
    if (lastAt <= colon) continue;
    out += `${text.slice(copied, userStart)}${redacted}`;
    copied = lastAt;
    from = lastAt + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// Cluster text leaves the service in verdicts, events and logs, and some of it quotes credentials:
// Docker Hub's rate-limit error names the pulling user and the id of its access token
// ("toomanyrequests: You have reached your pull rate limit as 'ci-bot': dckr_jti_...="), registries
// and webhooks echo Authorization headers, URLs carry basic-auth userinfo, a failing job prints its
// environment (`PGPASSWORD=...`) or its key file. Scrubbing errs towards cutting too much: a lost
// word in a diagnostic is cheap, a leaked token is not. test/fixtures/secret-shapes.json holds the
// shapes caught, and ordinary cluster text that must come through untouched.
//
// Any writer of an Event or a status can put a megabyte of text in front of this, so every
// pattern runs in time linear in the text, and callers scrub a bounded text (scrubBounded):
// - Each pattern starts where a failed attempt scans nothing the next attempt scans again: at the
//   start of a run of its first class (a lookbehind for "no such character before"), at a literal
//   (`-----BEGIN`, `pull rate limit as`), or at a separator (`=`, `:`, a space) with the lookbehind
//   for the name placed after it, so that it is tried at separators only. `\b` is no such start in
//   runs of `-` or `.`: that is how `a-a-a-...` made the old URL and JWT patterns quadratic.
// - Past its start, a quantified part that overlaps what follows it (`[A-Z0-9 ]* PRIVATE KEY`)
//   backtracks within its own run only, and values are a run of one class ended by a character
//   outside it.
// - The URL userinfo, whose password may hold `/` and `@`, is a scanner (urlUserinfo.ts).
// bench/scrub.bench.ts measures the time per KiB on adversarial inputs.
import { cut } from "./text.js";
import { scrubUrlUserinfo } from "./urlUserinfo.js";

const redacted = "[redacted]";

/** Names that hold a credential as their value: `DB_PASSWORD=`, `"client_secret":`, `AccountKey=`. */
const credentialName = "(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|account[_-]?key|private[_-]?key|secret[_-]?key)";
/** A value: quoted whole, or a run up to the next separator. */
const value = `"[^"]*"|'[^']*'|[^\\s&,;"']+`;

const selfIdentifying = [
  // Docker Hub, GitHub, GitLab, Slack.
  "(?:dckr_(?:pat|jti|oat)_|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|xapp-)[A-Za-z0-9_\\-=]+",
  // Stripe secret and restricted keys (publishable pk_ keys are public).
  "(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}",
  "npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])",
  // AWS access key ids (long-lived AKIA, temporary ASIA), Google API keys.
  "(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])",
  "AIza[A-Za-z0-9_-]{35}",
  // JWTs: header and payload are enough (a signature cut off by a bound leaves them readable).
  "eyJ[A-Za-z0-9_-]*\\.eyJ[A-Za-z0-9_-]*(?:\\.[A-Za-z0-9_-]*)?",
];

type Replacement = string | ((match: string, ...groups: string[]) => string);

const patterns: readonly (readonly [RegExp, Replacement])[] = [
  // PEM private keys, across lines: from BEGIN to END, or to the end of a text cut before its END.
  [/-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----|$)/g, redacted],
  // An END left over (every BEGIN went above) is a key whose head was cut off, as a log tail cuts.
  [/^[\s\S]*-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----/, redacted],
  // Docker Hub: the quoted user, and the token id that follows it.
  [/(pull rate limit as )'[^']*'(?::\s*[A-Za-z0-9_\-+/.]+=*)?/gi, `$1${redacted}`],
  // Other registries: "... as user alice" / "for user alice".
  [/\b((?:as|for) user)\s+['"]?[^\s'",;:]+['"]?/gi, `$1 ${redacted}`],
  // Authorization headers, also as JSON members ("Authorization":"Basic ..."), and bare bearer tokens.
  [
    /\b(authorization["']?\s*[:=]\s*["']?)(?:(bearer|basic|token)\s+)?[^\s,;"']+/gi,
    (_match, header: string, scheme: string | undefined) => `${header}${scheme ? `${scheme} ` : ""}${redacted}`,
  ],
  [/\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${redacted}`],
  // Presigned URLs (S3, GCS, Azure SAS, CloudFront): whoever holds the signature holds the access.
  [/([?&;](?:x-amz-(?:signature|credential|security-token)|x-goog-(?:signature|credential)|sig|signature)=)[^&\s"'#]+/gi, `$1${redacted}`],
  // key=value / key: value / "key":"value" / {'key': 'value'} for any name ending in a credential
  // word, whatever comes before it (`DB_PASSWORD`, `PGPASSWORD`, `spring.datasource.password`).
  // Found from the separator, the name then looked for behind it (the lookbehind after the `[=:]`,
  // so it is tried at separators only): a pattern starting at the name would try each credential
  // word at each character of every word of the text.
  [new RegExp(`([=:])(?<=${credentialName}["']?\\s*[=:])(\\s*)(${value})`, "gi"), `$1$2${redacted}`],
  // Command lines: `--password hunter2`, `--db-password "x"`, `-token abc`; found from the space.
  [new RegExp(`(\\s)(?<=(?:^|[^A-Za-z0-9_-])-[A-Za-z0-9_-]*${credentialName}\\s)(\\s*)(?!-)(${value})`, "gi"), `$1$2${redacted}`],
  // Formats that say what they are, wherever they appear. One pattern, so one pass over the text.
  [new RegExp(`(?<![A-Za-z0-9_-])(?:${selfIdentifying.join("|")})`, "g"), redacted],
];

/** The text with anything that looks like a credential replaced by `[redacted]`. Linear in the text. */
export function scrubCredentials(text: string): string {
  const scrubbed = patterns.reduce(
    (out, [pattern, replacement]) =>
      typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement),
    text,
  );
  return scrubUrlUserinfo(scrubbed);
}

/**
 * How far past its bound a text is read before it is scrubbed: a credential straddling the bound
 * is seen whole and redacted, rather than cut into a head no pattern knows (`https://u:hunt`). As
 * long as the longest single-line credentials that matter (a service account JWT, an Azure key),
 * and a constant, so scrubbing stays O(bound) whatever the text's size.
 */
export const scrubLookahead = 2048;

/**
 * The first `maxChars` characters of cluster text as they may leave the service: cut (to the bound
 * and the lookahead) first, then scrubbed, then cut to the bound, so the cost of scrubbing is set
 * by the bound and never by what a writer of the cluster's objects chose to put there.
 */
export function scrubBounded(text: string, maxChars: number): string {
  const window = maxChars + scrubLookahead;
  const scrubbed = scrubCredentials(text.slice(0, window));
  // Redactions may have shrunk the window below the bound: the `…` still says the end was cut.
  return cut(text.length > window ? `${scrubbed}…` : scrubbed, maxChars);
}

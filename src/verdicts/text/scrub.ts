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
// - A lookbehind that looks further back than one character (a command before its flag) is
//   bounded: at most so many arguments, each a run of one class.
// - The URL userinfo, whose password may hold `/` and `@`, is a scanner (urlUserinfo.ts).
// bench/scrub.bench.ts measures the time per KiB on adversarial inputs.
//
// The patterns read the text as a person would see it: escape sequences, control and format
// characters removed first (text.ts; `pass\u200Bword=` and a logger's `ESC[36mpassword ESC[0m=`
// show as `password=`), then NFKC-normalised (fullwidth `ｐａｓｓｗｏｒｄ` and ligatures become the
// ASCII a pattern knows). What leaves is that text, not the original: the removed characters are
// the ones no reader should get anyway.
import { cut, withoutControlCharacters } from "./text.js";
import { scrubUrlUserinfo } from "./urlUserinfo.js";

const redacted = "[redacted]";

/** Names that hold a credential as their value: `DB_PASSWORD=`, `"client_secret":`, `AccountKey=`. */
const credentialName = "(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|account[_-]?key|private[_-]?key|secret[_-]?key)";
/** A value: quoted whole, or a run up to the next separator. */
const value = `"[^"]*"|'[^']*'|[^\\s&,;"']+`;

/**
 * An environment variable that holds a credential, by the convention of upper-case names made of
 * `_`-separated words: one of the words says what it holds (`DB_PASS`, `SECRET_KEY_BASE`,
 * `GITHUB_TOKEN`, `GOOGLE_APPLICATION_CREDENTIALS`), unless the last word says the value only
 * points at one (`DB_PASSWORD_FILE`, `TLS_KEY_PATH`, `SECRET_NAME`). Whole words only: `KEYCLOAK_URL`
 * and `MONKEY` hold none. Upper case only: `secretName=`, `max_tokens=` and `key=value` are
 * ordinary Kubernetes text.
 */
const envCredentialName =
  "(?:[A-Z0-9]+_)*?(?:PASS|PASSWD|PASSWORD|PASSPHRASE|PWD|SECRETS?|TOKENS?|KEYS?|CREDENTIALS?)(?:_(?!(?:FILE|PATH|DIR|NAME|URL|REF)(?![A-Z0-9_]))[A-Z0-9]+)*";
/** An environment variable's name at most this long is looked at: one start a run, bounded work there. */
const envName = `(?<![A-Za-z0-9_])(?=[A-Z][A-Z0-9_]{0,63}(?![A-Z0-9_]))`;

/** One argument of a command line, and so many of them before a flag: the lookbehinds' bound. */
const argument = "[^\\s;|&]+";
const precedingArguments = (count: number) => `(?:\\s+${argument}){0,${count}}`;
/** A command's name as a word of its own (`/usr/bin/mysql` too), not inside another word. */
const command = (names: string) => `(?<![A-Za-z0-9_.-])(?:${names})`;
const mysqlCommands = "mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump|mariadb-admin";
/** The CLIs whose `login` takes `-p <password>`: Docker, Podman, nerdctl, Buildah, Skopeo, ORAS, crane, Helm's `registry login`. */
const loginCommands = "docker|podman|nerdctl|buildah|skopeo|oras|crane|helm";

/** Whether a base64 word decodes to `user:password`, as the credentials of a Basic header do. */
function isBasicCredentials(base64: string): boolean {
  if (base64.length % 4 === 1) return false;
  let decoded: string;
  try {
    decoded = atob(base64);
  } catch {
    return false;
  }
  // A word of letters ("Basic authentication") decodes to bytes, rarely a colon among printable ones.
  return decoded.indexOf(":") > 0 && !/[\u0000-\u001f\u007f]/.test(decoded);
}

const selfIdentifying = [
  // Docker Hub, GitHub, GitLab (personal, runner, deploy, trigger, CI job, feed, agent, OAuth,
  // service account and incoming mail tokens), Slack.
  "(?:dckr_(?:pat|jti|oat)_|gh[pousr]_|github_pat_|gl(?:pat|rt|dt|ptt|cbt|ft|agent|oas|soat|imt)-|xox[abposr]-|xapp-)[A-Za-z0-9_\\-=]+",
  // HashiCorp Vault service, batch and recovery tokens.
  "hv[sbr]\\.[A-Za-z0-9_-]{20,}",
  // OpenAI project, service account and admin keys, Anthropic keys (`sk-ant-api03-...`).
  "sk-(?:proj|svcacct|admin|ant)-[A-Za-z0-9_-]{20,}",
  // SendGrid: `SG.` then the key id and the secret.
  "SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{32,64}",
  // bcrypt hashes (`$2a$`, `$2b$`, `$2y$`): crackable offline, so a secret like the password itself.
  "\\$2[abxy]?\\$[0-9]{2}\\$[./A-Za-z0-9]{53}",
  // Private keys as base64 DER without a PEM header: a SEQUENCE whose first element is the version
  // INTEGER (PKCS#1, PKCS#8, SEC1; two-byte and one-byte lengths), an EC P-256 SEC1 key, an
  // Ed25519 PKCS#8 key. Certificates and public keys also begin `MII`, but with a SEQUENCE
  // (`MIIDdzCCAl+g`, `MIIBIjANBgkq`), and are not secret.
  "(?:MII[A-Za-z0-9+/]{2}[AQgw]IBA|MIG[A-Za-z0-9+/]AgE[AB]|MHcCAQEE|MC4CAQAwBQYDK2Vw)[A-Za-z0-9+/]{20,}={0,2}",
  // A whole .dockerconfigjson, base64: `{"auths":` encoded.
  "eyJhdXRocyI6[A-Za-z0-9+/]*={0,2}",
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

/**
 * A pattern, its replacement, and for the costlier ones a precondition: what any match holds, a
 * literal the regex engine finds by a fast scan, so that ordinary text, which holds none, skips a
 * pattern that tries every word (the DSN) or every upper-case run (environment names). Linear
 * itself: no unbounded run after the literal (`PASS[A-Z_]*=` would rescan a run from each `PASS`).
 */
type Pattern = readonly [RegExp, Replacement, RegExp?];

const patterns: readonly Pattern[] = [
  // PEM private keys, across lines: from BEGIN to END, or to the end of a text cut before its END.
  [/-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----|$)/g, redacted],
  // An END left over (every BEGIN went above) is a key whose head was cut off, as a log tail cuts.
  [/^[\s\S]*-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----/, redacted],
  // Docker Hub: the quoted user, and the token id that follows it.
  [/(pull rate limit as )'[^']*'(?::\s*[A-Za-z0-9_\-+/.]+=*)?/gi, `$1${redacted}`],
  // Other registries: "... as user alice" / "for user alice".
  [/\b((?:as|for) user)[^\S\r\n]+['"]?[^\s'",;:]+['"]?/gi, `$1 ${redacted}`],
  // Authorization headers, also as JSON members ("Authorization":"Basic ..."), and bare bearer tokens.
  [
    /\b(authorization["']?[^\S\r\n]*[:=][^\S\r\n]*["']?)(?:(bearer|basic|token)[^\S\r\n]+)?[^\s,;"']+/gi,
    (_match, header: string, scheme: string | undefined) => `${header}${scheme ? `${scheme} ` : ""}${redacted}`,
  ],
  [/\b(bearer)[^\S\r\n]+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${redacted}`],
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
  // Environment assignments: `DB_PASS=x`, `SECRET_KEY_BASE="x"` (envCredentialName).
  [new RegExp(`${envName}(${envCredentialName}=)(${value})`, "g"), `$1${redacted}`, /PASS|PWD|SECRET|TOKEN|KEY|CREDENTIAL/],
  // An environment variable as Kubernetes shows one: JSON `{"name":"DB_PASS","value":"x"}`, YAML
  // `name: DB_PASS` / `value: x`, Go's `{Name:DB_PASS Value:x}` and `Name:"DB_PASS", Value:"x"`.
  // Found from the literal `name`; the name's run ends at its quote, the value at its own.
  [
    new RegExp(
      `(?<![A-Za-z0-9_])(["']?[Nn]ame["']?\\s*[:=]\\s*(["']?)${envName}${envCredentialName}\\2[\\s,]*["']?[Vv]alue["']?\\s*[:=]\\s*)(?:"[^"]*"|'[^']*'|[^\\s,}"']+)`,
      "g",
    ),
    `$1${redacted}`,
    /[Nn]ame/,
  ],
  // Flags that take a password: the mysql clients' `-pS3cret` (attached: a bare `-p` asks for it),
  // sshpass's `-p pw`, a registry login's `-p pw`, curl's `-u user:pw` (`--user`, `--proxy-user`,
  // `-U`). Never `-p` on its own: it is `mkdir -p`, `ssh -p 2222`, `docker run -p 8080:80`. Found
  // from the flag, the command looked for behind it within a few arguments.
  [new RegExp(`(\\s-p)(?<=${command(mysqlCommands)}${precedingArguments(16)}\\s-p)(?:${value})`, "g"), `$1${redacted}`, /mysql|mariadb/],
  [
    new RegExp(`(\\s-p(?:=|\\s*))(?<=(?:${command("sshpass")}|${command(loginCommands)}${precedingArguments(4)}\\s+login)${precedingArguments(16)}\\s-p(?:=|\\s*))(?!-)(?:${value})`, "g"),
    `$1${redacted}`,
    /sshpass|login/,
  ],
  [
    new RegExp(`(\\s(?:-u|-U|--user|--proxy-user)(?:=|\\s*))(?<=${command("curl")}${precedingArguments(24)}\\s(?:-u|-U|--user|--proxy-user)(?:=|\\s*))(?!-)(?:${value})`, "g"),
    `$1${redacted}`,
    /curl/,
  ],
  // Go's MySQL DSN, `user:password@tcp(db:3306)/app` (any network: `unix(`, `cloudsql(`): from the
  // start of a run to the last `@` before the network, as urlUserinfo.ts does for URLs; a name=
  // before it (`DSN=`) is kept.
  [/(?<![^\s"'`])((?:[A-Za-z_][A-Za-z0-9_]*=)?)[^\s"'`:=]*:[^\s"'`]*(?=@[a-z][a-z0-9]*\()/g, `$1${redacted}`, /@[a-z][a-z0-9]*\(/],
  // Cookies, requested and set: every `name=value` of the header, attributes included.
  [/\b((?:set-)?cookie["']?\s*:\s*["']?)[^\s;"',=]+=[^\s;"',]*(?:;\s?[^\s;"',]+)*/gi, `$1${redacted}`, /cookie/i],
  // A registry's credentials in a .dockerconfigjson: `"auth":"<base64 of user:password>"`, also
  // JSON inside JSON (`\"auth\":\"...\"`).
  [/(\\?"auth\\?"\s*:\s*)\\?"[^"\\\s]*\\?"/g, `$1${redacted}`, /"auth\\?"/],
  // `Basic <base64>` outside an Authorization header (a client's debug line, a curl -v dump), when
  // the word decodes to `user:password`.
  [/(?<![A-Za-z0-9_-])(basic)([^\S\r\n]+)([A-Za-z0-9+/]+={0,2})(?![A-Za-z0-9+/=])/gi, (match, scheme: string, space: string, word: string) => (isBasicCredentials(word) ? `${scheme}${space}${redacted}` : match), /basic/i],
  // Formats that say what they are, wherever they appear. One pattern, so one pass over the text.
  [new RegExp(`(?<![A-Za-z0-9_-])(?:${selfIdentifying.join("|")})`, "g"), redacted],
];

/** The text with anything that looks like a credential replaced by `[redacted]`. Linear in the text. */
export function scrubCredentials(text: string): string {
  const shown = withoutControlCharacters(text).normalize("NFKC");
  const scrubbed = patterns.reduce((out, [pattern, replacement, precondition]) => {
    if (precondition !== undefined && !precondition.test(out)) return out;
    return typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  }, shown);
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

// Cluster text leaves the service in verdicts, events and logs, and some of it quotes credentials:
// Docker Hub's rate-limit error names the pulling user and the id of its access token
// ("toomanyrequests: You have reached your pull rate limit as 'ci-bot': dckr_jti_...="), registries
// and webhooks echo Authorization headers, URLs carry basic-auth userinfo. Scrubbing errs towards
// cutting too much: a lost word in a diagnostic is cheap, a leaked token is not.

const redacted = "[redacted]";

type Replacement = string | ((match: string, ...groups: string[]) => string);

const patterns: readonly (readonly [RegExp, Replacement])[] = [
  // Docker Hub: the quoted user, and the token id that follows it.
  [/(pull rate limit as )'[^']*'(?::\s*[A-Za-z0-9_\-+/.]+=*)?/gi, `$1${redacted}`],
  // Other registries: "... as user alice" / "for user alice".
  [/\b((?:as|for) user)\s+['"]?[^\s'",;:]+['"]?/gi, `$1 ${redacted}`],
  // Authorization headers and bare bearer tokens.
  [
    /\b(authorization\s*[:=]\s*)(?:(bearer|basic|token)\s+)?[^\s,;"']+/gi,
    (_match, header: string, scheme: string | undefined) => `${header}${scheme ? `${scheme} ` : ""}${redacted}`,
  ],
  [/\b(bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${redacted}`],
  // https://user:password@registry.example.com/ -> https://[redacted]@registry.example.com/
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi, `$1${redacted}@`],
  // key=value / key: value / "key":"value" for credential-like keys.
  [
    /\b((?:access_|refresh_|id_|auth_|api_|registry_)?token|password|passwd|pwd|secret|client_secret|api[_-]?key)("?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s&,;"']+)/gi,
    `$1$2${redacted}`,
  ],
  // Self-identifying token formats, wherever they appear.
  [/\b(?:dckr_(?:pat|jti|oat)_|gh[pousr]_|github_pat_|glpat-)[A-Za-z0-9_\-=]+/g, redacted],
  [/\beyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, redacted],
];

/** The text with anything that looks like a credential replaced by `[redacted]`. */
export function scrubCredentials(text: string): string {
  return patterns.reduce(
    (out, [pattern, replacement]) =>
      typeof replacement === "string" ? out.replace(pattern, replacement) : out.replace(pattern, replacement),
    text,
  );
}

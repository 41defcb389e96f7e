// `--timeout 5m`, `1h30m`, `90s`, `300` (seconds): the Go duration syntax kubectl, Helm and
// Argo CD users type, so a CI script can pass the same value it gives `helm --timeout`.
import { UsageError } from "../io/usage.js";

const unitSeconds: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };

export class DurationSyntaxError extends Error {
  override name = "DurationSyntaxError";
}

export function parseDurationSeconds(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== trimmed) {
    throw new DurationSyntaxError(`'${text}' is not a duration (e.g. 300, 90s, 5m, 1h30m)`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * unitSeconds[unit as string]!, 0);
}

/** A `--timeout`-style flag in whole seconds (a budget is whole seconds on the wire); bad input names the flag. */
export function durationFlagSeconds(flag: string, text: string): number {
  try {
    return Math.ceil(parseDurationSeconds(text));
  } catch (cause) {
    throw new UsageError(`${flag}: ${(cause as Error).message}`, { cause });
  }
}

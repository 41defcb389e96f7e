// `--fail-on ImagePullBackOff,CrashLoopBackOff:2m,FailedCreate:60s`: reasons, each terminal at once
// or after the grace written after its last ':' (Go's duration syntax, as --timeout). A reason may
// hold a ':' itself (FailOnReason), so only a suffix that starts with a digit is read as a grace,
// and one that starts with a digit but is no duration is an error rather than part of a reason.
// The contract's own modules, not verdicts/index.ts: observe's start-up loads no more than it uses.
import { FailOnEntry, type FailOnEntry as Entry } from "../../verdicts/contract/failOn.js";
import { parseWith } from "../../verdicts/contract/validation.js";
import { parseDurationSeconds } from "./duration.js";
import { UsageError } from "../io/usage.js";

export function parseFailOnFlag(flag: string, text: string): Entry[] {
  const items = text.split(",").map((item) => item.trim()).filter(Boolean);
  return items.map((item) => {
    const colon = item.lastIndexOf(":");
    const suffix = colon < 0 ? "" : item.slice(colon + 1);
    let entry: Entry = item;
    if (/^\d/.test(suffix)) {
      let seconds: number;
      try {
        seconds = parseDurationSeconds(suffix);
      } catch (cause) {
        throw new UsageError(`${flag}: '${item}': ${(cause as Error).message}`, { cause });
      }
      entry = { reason: item.slice(0, colon), graceSeconds: Math.ceil(seconds) };
    }
    const parsed = parseWith(FailOnEntry, entry);
    if (!parsed.ok) throw new UsageError(`${flag}: '${item}': ${parsed.issues.map((issue) => issue.message).join("; ")}`);
    return parsed.value;
  });
}

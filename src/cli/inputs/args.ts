// A thin layer over node:util parseArgs that turns its errors into UsageError, so every command
// reports bad flags the same way (exit 2) instead of a stack trace.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../io/usage.js";

export function parseCommandArgs<O extends NonNullable<ParseArgsConfig["options"]>>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false });
  } catch (cause) {
    throw new UsageError((cause as Error).message, { cause });
  }
}

/** The same, for commands that take operands (`stagewatch get ID`). */
export function parseCommandArgsWithOperands<O extends NonNullable<ParseArgsConfig["options"]>>(argv: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (cause) {
    throw new UsageError((cause as Error).message, { cause });
  }
}

/** A flag written `--name=true` or `--name=false` (a boolean parseArgs option cannot be turned off). */
export function booleanFlag(name: string, value: string): boolean {
  if (value === "true") return true;
  if (value === "false") return false;
  throw new UsageError(`--${name}: '${value}' must be true or false`);
}

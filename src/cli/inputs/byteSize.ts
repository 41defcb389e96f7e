// Sizes on the command line as operators write them for NATS and Kubernetes: `1GiB`, `512MiB`,
// `64KiB`, or a number of bytes; the chart's values use the same words.
import { UsageError } from "../io/usage.js";

const units: Record<string, number> = { "": 1, B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

/** Bytes in `text`; a UsageError naming `flag` otherwise. */
export function byteSizeFlag(flag: string, text: string): number {
  const match = /^(\d+)\s*(B|KiB|MiB|GiB|TiB)?$/.exec(text.trim());
  const bytes = match ? Number(match[1]) * units[match[2] ?? ""]! : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new UsageError(`${flag}: '${text}' is not a size (a number of bytes, or with KiB, MiB, GiB, TiB: 512MiB)`);
  return bytes;
}

/** A whole number of at least `min`; a UsageError naming `flag` otherwise. */
export function countFlag(flag: string, text: string, min = 1): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) throw new UsageError(`${flag}: '${text}' must be a whole number of at least ${min}`);
  return value;
}

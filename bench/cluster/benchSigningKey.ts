// The benchmark service's signing key, in a module of its own: toolRuns.ts reaches the stamp thread
// (helmSample.ts -> scale.ts -> stampThread.ts), a worker that Node loads itself under vitest, without
// vitest's `.js` -> `.ts` resolution, and src/signing imports its siblings as `./x.js`.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { newSigningSeed } from "../../src/signing/index.ts";

/**
 * A signing key for the benchmark's `serve` (`--signing-key` reads `seedFile`) and its public half
 * for observe in service mode (STAGEWATCH_VERIFY_KEY), as a cluster's pipelines are given it:
 * observe takes no unverified success (exit 3), and verifying is part of what a pipeline waits for.
 */
export function benchSigningKey(dir: string): { seedFile: string; publicKey: string } {
  const { seed, publicKey } = newSigningSeed();
  const seedFile = join(dir, "signing.nk");
  writeFileSync(seedFile, `${seed}\n`, { mode: 0o600 });
  return { seedFile, publicKey };
}

import type { Logger } from "../logging/index.js";

/** Runs one step of the engine; a rule or reducer bug is logged, and never ends a shared subscription or a timer for every observation. */
export function guarded(logger: Logger, context: object, work: () => void): void {
  try {
    work();
  } catch (error) {
    logger.error({ ...context, err: error }, "observation step failed");
  }
}

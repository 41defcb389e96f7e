// `--subject-prefix`, shared by every command: the flag wins, else $STAGEWATCH_SUBJECT_PREFIX (one
// prefix per cluster on a shared NATS, set once in the environment), else `stagewatch`. A bad value
// is bad input (2) naming where it came from, not an unexpected error.
import { busNames, InvalidSubjectTokenError, subjectPrefixFromEnv, subjectPrefixVariable } from "../../bus/subjects.js";
import { UsageError } from "../io/usage.js";

export const subjectPrefixOption = { "subject-prefix": { type: "string" } } as const;

export const subjectPrefixHelp = `  --subject-prefix P      NATS subject prefix (default: $${subjectPrefixVariable}, else stagewatch)`;

export function resolveSubjectPrefix(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const prefix = flag ?? subjectPrefixFromEnv(env);
  try {
    busNames(prefix);
  } catch (error) {
    if (error instanceof InvalidSubjectTokenError) {
      const source = flag === undefined ? subjectPrefixVariable : "--subject-prefix";
      throw new UsageError(`${source}: ${JSON.stringify(prefix)} is not a subject prefix: tokens of letters, digits, '-' and '_', joined by '.'`, { cause: error });
    }
    throw error;
  }
  return prefix;
}

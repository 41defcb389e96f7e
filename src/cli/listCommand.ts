// `stagewatch list`: what is in flight, for an operator who wants to see it without writing NATS
// code. It reads the replicas' KV buckets directly (read only, bus/inProgress.ts), so it shows the
// owning replica of each observation and still answers while no replica runs. It imports nothing
// of the Kubernetes client: an operator's shell needs no kubeconfig for it.
// Exit codes: 0 listed (none in progress included), 2 bad input, 3 NATS unreachable or no service
// ever ran with this prefix.
import { natsConfigFromEnv } from "../bus/connectionOptions.js";
import { readInProgress } from "../bus/inProgress.js";
import { describeIssues } from "../verdicts/validation.js";
import { parseCommandArgs } from "./args.js";
import type { CommandIo } from "./commandIo.js";
import { inProgressItem, inProgressTable } from "./inProgressTable.js";
import { resolveSubjectPrefix, subjectPrefixHelp, subjectPrefixOption } from "./subjectPrefix.js";
import { exitCodes, UsageError } from "./usage.js";

export const listUsage = `Usage: stagewatch list [flags]

Lists the observations in progress, oldest first: deployment, key, required stage, stage reached,
age, budget left and the replica that owns it (marked expired or released while another replica
takes it over). Read from the service's KV buckets: it answers while no replica runs.

Flags:
  --deployment NAME       only this deployment's observations
  -o, --output FORMAT     table (default) or json ({"items": [...]})
${subjectPrefixHelp}
  -h, --help

Environment: NATS_URL and NATS credentials as for 'stagewatch serve'; STAGEWATCH_SUBJECT_PREFIX.
Exit codes: 0 listed (also when none is in progress), 2 bad input, 3 NATS unreachable or no
stagewatch service ever ran with this prefix.
`;

const outputFormats = ["table", "json"] as const;

export async function listCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    deployment: { type: "string" },
    output: { type: "string", short: "o", default: "table" },
    ...subjectPrefixOption,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout.write(listUsage);
    return exitCodes.reached;
  }
  if (!(outputFormats as readonly string[]).includes(values.output)) throw new UsageError(`-o/--output: must be one of ${outputFormats.join(", ")}`);
  const prefix = resolveSubjectPrefix(values["subject-prefix"], io.env);
  const nats = natsConfigFromEnv(io.env);
  if (!nats.ok) throw new UsageError(`NATS settings: ${describeIssues(nats.issues)}`);

  const nowMs = Date.now();
  const listing = await readInProgress({ ...nats.value, prefix, nowMs });
  for (const { observationId, problem } of listing.unreadable) io.stderr.write(`stagewatch: observation ${observationId} left out: ${problem}\n`);
  const items = listing.observations.map(inProgressItem).filter((item) => values.deployment === undefined || item.deployment === values.deployment);
  if (values.output === "json") {
    io.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
  } else if (items.length === 0) {
    io.stderr.write(`No observations in progress${values.deployment === undefined ? "" : ` for deployment ${values.deployment}`} (subject prefix ${prefix}).\n`);
  } else {
    io.stdout.write(inProgressTable(items, nowMs));
  }
  return exitCodes.reached;
}

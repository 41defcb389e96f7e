// `stagewatch list`: what is in flight, for an operator who wants to see it without writing NATS
// code. It asks the service (`<prefix>.list`), which answers what the caller's tenant may see, so
// a team needs no access to the KV buckets. When no service answers at all, it reads the
// replicas' KV buckets directly (read only, bus/stores/inProgress.ts), so an operator whose account holds
// them still sees each observation's owning replica while no replica runs. It imports nothing of
// the Kubernetes client: an operator's shell needs no kubeconfig for it.
// Exit codes: 0 listed (none in progress included), 2 bad input, 3 NATS unreachable or no service
// ever ran with this prefix.
import { RequestError } from "@nats-io/transport-node";
import { connectObserver } from "../../bus/client/client.js";
import { ObserverUnavailableError } from "../../bus/client/clientErrors.js";
import { natsConfigFromEnv, type NatsConnectionConfig } from "../../bus/connectionOptions.js";
import { inProgressItem, readInProgress } from "../../bus/stores/inProgress.js";
import type { InProgressItem } from "../../verdicts/contract/schemas.js";
import { describeIssues } from "../../verdicts/contract/validation.js";
import { parseCommandArgs } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { inProgressTable } from "../views/inProgressTable.js";
import { resolveSubjectPrefix, subjectPrefixHelp, subjectPrefixOption } from "../inputs/subjectPrefix.js";
import { exitCodes, UsageError } from "../io/usage.js";

export const listUsage = `Usage: stagewatch list [flags]

Lists the observations in progress, oldest first: deployment, key, required stage, stage reached,
age, budget left and the replica that owns it (marked expired or released while another replica
takes it over). Asked of the service, which shows your tenant's only (every one to an admin, or
without a tenants file); when no service answers, read from its KV buckets where the NATS user
may read them, so it answers while no replica runs.

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
  const listing = await listed(nats.value, prefix, values.deployment, nowMs, io);
  for (const { observationId, problem } of listing.unreadable) io.stderr.write(`stagewatch: observation ${observationId} left out: ${problem}\n`);
  const { items } = listing;
  if (values.output === "json") {
    io.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
  } else if (items.length === 0) {
    io.stderr.write(`No observations in progress${values.deployment === undefined ? "" : ` for deployment ${values.deployment}`} (subject prefix ${prefix}).\n`);
  } else {
    io.stdout.write(inProgressTable(items, nowMs));
  }
  return exitCodes.reached;
}

type Listing = { items: InProgressItem[]; unreadable: { observationId: string; problem: string }[] };

/** The service's answer; the KV buckets when nobody listens on the list subject (no replica runs, or one from before `list` was a request). */
async function listed(nats: NatsConnectionConfig, prefix: string, deployment: string | undefined, nowMs: number, io: CommandIo): Promise<Listing> {
  // A listing carries no verdict: nothing to verify, so no key to learn either.
  const observer = await connectObserver({ ...nats, prefix, verifyKey: [], learnVerifyKey: false });
  try {
    return await observer.list(deployment === undefined ? {} : { deployment });
  } catch (error) {
    if (!(error instanceof ObserverUnavailableError && error.cause instanceof RequestError && error.cause.isNoResponders())) throw error;
  } finally {
    await observer.close();
  }
  io.stderr.write(`stagewatch: no service answered on ${prefix}.list; read from its KV buckets\n`);
  const listing = await readInProgress({ ...nats, prefix, nowMs });
  const items = listing.observations.map(inProgressItem).filter((item) => deployment === undefined || item.deployment === deployment);
  return { items, unreadable: listing.unreadable };
}

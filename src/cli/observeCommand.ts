// `stagewatch observe`: what an apply tool runs after `kubectl apply` or `helm upgrade`. It sends
// identities only (never manifest content), prints progress on stderr for the person watching the
// CI log, and the verdict on stdout for the script; the exit code says which of the four
// situations it is (usage.ts).
import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
// The bus client's own modules rather than bus/index.js, which also brings the service's side
// (KV records, leases, the request server): observe's start-up is what every CI job pays.
import { connectObserver } from "../bus/client.js";
import { ObservationRejectedError } from "../bus/clientErrors.js";
import { natsConfigFromEnv } from "../bus/connectionOptions.js";
import { ObservationRequest, type ObservationRequestInput, type ObservationVerdict, type Stage } from "../verdicts/schemas.js";
import { describeIssues, parseWith } from "../verdicts/validation.js";
import { parseCommandArgs } from "./args.js";
import type { CommandIo } from "./commandIo.js";
import { durationFlagSeconds } from "./duration.js";
import { failureLogText } from "./failureLogText.js";
import { kubeconfigNamespace } from "./kubeconfigNamespace.js";
import { readDeclaredResources } from "./manifests.js";
import type { ProgressView } from "./progressViews.js";
import { resolveSubjectPrefix, subjectPrefixHelp, subjectPrefixOption } from "./subjectPrefix.js";
import { exitCodes, UsageError } from "./usage.js";
import { rejectionReport, resolveVerifyKeys, unverifiedNotice, verifyKeyHelp, verifyKeyOption } from "./verification.js";

export const observeUsage = `Usage: stagewatch observe -f FILE_OR_DIR... --deployment NAME [flags]

Asks the stagewatch service to observe the resources declared in the manifests and prints the verdict.

Flags:
  -f, --filename PATH     manifest file or directory (repeatable; .yaml, .yml, .json); '-' reads
                          standard input: kubectl apply -o json|yaml, helm get manifest. Objects
                          carrying metadata.generation (server output) are observed at that generation
  --deployment NAME       the deployment these resources belong to (a-z, 0-9, '-')
  --require STAGE         applied, bootstrapped or healthy (default healthy)
  --timeout DURATION      total budget, e.g. 300, 90s, 5m, 1h30m (default 5m)
  --stall DURATION|auto   say "stalled" on stderr when nothing moved this long (default 2m; 0: never);
                          auto: once the rollout takes longer to reach its next stage than 95% of
                          this deployment's earlier rollouts did (with fewer than 3, the default)
  --traceparent TP        join this W3C trace: the service exports the observation as spans under
                          it (default: $TRACEPARENT, with $TRACESTATE)
  --key KEY               idempotency key: a retry with the same key follows the same observation
                          (default: a new key each run)
  --namespace NS          namespace of resources that declare none (default: the kubeconfig
                          context's namespace, else "default": where kubectl apply put them)
  --fail-on R1,R2         reasons that fail at once: pod waiting reasons, Ready=False reasons and
                          Warning event reasons such as FailedCreate (default ImagePullBackOff,InvalidImageName)
  --load-balancer-address wait|ignore
                          wait (default) for a LoadBalancer Service's address, or settle it
                          without one (clusters with no load-balancer controller: kind, bare metal)
  --logs                  on a failure, print the failing container's last log lines (read once
                          by the service, scrubbed; needs serve --container-logs)
  --json                  print the verdict as JSON, with "verified": whether it was verified
  --verdict-file FILE     also write the verdict, as the service signed it, to FILE (evidence for
                          the CI job's artifacts; check it with 'stagewatch verify FILE')
${verifyKeyHelp}
  --progress MODE         auto, tty or plain (default auto: tty when stderr is a terminal): tty
                          redraws one line per resource in place, plain prints one line per change
${subjectPrefixHelp}
  -h, --help

Environment: NATS_URL and NATS credentials as for 'stagewatch serve'; STAGEWATCH_SUBJECT_PREFIX;
STAGEWATCH_VERIFY_KEY; TRACEPARENT and TRACESTATE (the trace a CI pipeline runs in).
Exit codes: 0 reached, 1 failed or timed out, 2 bad input, 3 no observer or NATS unreachable.
`;

export async function observeCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    filename: { type: "string", short: "f", multiple: true },
    deployment: { type: "string" },
    require: { type: "string", default: "healthy" },
    timeout: { type: "string", default: "5m" },
    stall: { type: "string" },
    traceparent: { type: "string" },
    key: { type: "string" },
    namespace: { type: "string" },
    "fail-on": { type: "string" },
    "load-balancer-address": { type: "string" },
    json: { type: "boolean", default: false },
    logs: { type: "boolean", default: false },
    progress: { type: "string", default: "auto" },
    "verdict-file": { type: "string" },
    ...verifyKeyOption,
    ...subjectPrefixOption,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout.write(observeUsage);
    return exitCodes.reached;
  }
  if (!values.filename?.length) throw new UsageError("-f/--filename: required (a manifest file or directory)");
  if (!values.deployment) throw new UsageError("--deployment: required");
  const timeoutSeconds = durationFlagSeconds("--timeout", values.timeout);
  if (!progressModes.includes(values.progress as ProgressMode)) {
    throw new UsageError(`--progress: must be one of ${progressModes.join(", ")}`);
  }
  const prefix = resolveSubjectPrefix(values["subject-prefix"], io.env);
  const live = values.progress === "tty" || (values.progress === "auto" && io.stderr.isTTY === true);
  const nats = natsConfigFromEnv(io.env);
  if (!nats.ok) throw new UsageError(`NATS settings: ${describeIssues(nats.issues)}`);
  const verifyKey = resolveVerifyKeys(values["verify-key"], io.env).map((key) => key.publicKey);

  const resources = await readDeclaredResources(values.filename, { readStdin: io.readStdin });
  const request: ObservationRequestInput = {
    key: values.key ?? `${values.deployment}/${randomUUID()}`,
    deployment: values.deployment,
    require: values.require as Stage,
    timeoutSeconds,
    ...(values.stall !== undefined && { stallSeconds: values.stall === "auto" ? "auto" : durationFlagSeconds("--stall", values.stall) }),
    ...traceContext(values.traceparent, io.env),
    defaultNamespace: values.namespace ?? (await kubeconfigNamespace(io.env, io.env["HOME"] === undefined ? {} : { home: io.env["HOME"] })),
    resources,
    ...(values["fail-on"] !== undefined && { failOn: values["fail-on"].split(",").map((r) => r.trim()).filter(Boolean) }),
    ...(values.logs && { logs: true }),
    ...(values["load-balancer-address"] !== undefined && { loadBalancerAddress: values["load-balancer-address"] as ObservationRequestInput["loadBalancerAddress"] }),
  };
  // Checked before connecting, although the client checks again: a typo (`--require rendered`,
  // `--deployment Web_1`) is bad input (2) even while NATS is down, never "unreachable" (3), which
  // a CI script may retry.
  const valid = parseWith(ObservationRequest, request);
  if (!valid.ok) throw new ObservationRejectedError("invalid_request", "invalid observation request", valid.issues);
  const rejections = rejectionReport();
  const observer = await connectObserver({ ...nats.value, prefix, verifyKey, logger: rejections.logger });
  try {
    const run = await observer.observe(request);
    io.stderr.write(`observing ${resources.length} resource${resources.length === 1 ? "" : "s"} as ${run.observationId}${run.replay ? " (replay)" : ""}\n`);
    // The views (and the rules' descriptions they print) load once the request is on its way: the
    // events that arrive meanwhile wait in the run's queue.
    const { liveView, plainView } = await import("./progressViews.js");
    const view: ProgressView = live
      ? liveView({
          terminal: io.stderr,
          start: {
            deployment: request.deployment,
            observationId: run.observationId,
            required: request.require,
            startedAtMs: Date.now(),
            deadlineMs: Date.now() + timeoutSeconds * 1000,
          },
          // The service's clock and resolved namespaces, and on a replay the readings so far; the
          // view starts from the local guess when it does not answer.
          current: await observer.get(run.observationId).catch(() => undefined),
          colour: io.env["NO_COLOR"] === undefined || io.env["NO_COLOR"] === "",
        })
      : plainView((text) => io.stderr.write(text));
    for await (const event of run.progress) view.event(event);
    const verdict = await run.verdict;
    view.finish(verdict);
    if (values["verdict-file"] !== undefined) await writeVerdictFile(values["verdict-file"], verdict);
    // `verified` is observe's own note beside the service's verdict, not part of what it signed.
    io.stdout.write(values.json ? `${JSON.stringify({ ...verdict, verified: observer.verifies }, null, 2)}\n` : `${verdict.message}\n${failureLogText(verdict.failure)}`);
    if (!observer.verifies) io.stderr.write(unverifiedNotice);
    return exitCodeOf(verdict);
  } finally {
    const rejected = rejections.line(observer.rejected);
    if (rejected) io.stderr.write(rejected);
    await observer.close();
  }
}

/**
 * The trace to join: the flag, else TRACEPARENT (the convention CI tools and otel-cli follow) with
 * TRACESTATE; an empty variable counts as unset, as shells write it. Checked with the request.
 */
function traceContext(flag: string | undefined, env: NodeJS.ProcessEnv): Pick<ObservationRequestInput, "traceparent" | "tracestate"> {
  const traceparent = flag ?? (env["TRACEPARENT"] || undefined);
  if (traceparent === undefined) return {};
  const tracestate = flag === undefined ? env["TRACESTATE"] || undefined : undefined;
  return { traceparent, ...(tracestate !== undefined && { tracestate }) };
}

/** The verdict as it arrived (with its signature), for `stagewatch verify`. */
async function writeVerdictFile(path: string, verdict: ObservationVerdict): Promise<void> {
  try {
    await writeFile(path, `${JSON.stringify(verdict, null, 2)}\n`);
  } catch (cause) {
    throw new UsageError(`--verdict-file: cannot write ${path}: ${(cause as Error).message}`, { cause });
  }
}

const progressModes = ["auto", "tty", "plain"] as const;
type ProgressMode = (typeof progressModes)[number];

export function exitCodeOf(verdict: ObservationVerdict): number {
  return verdict.outcome === "succeeded" ? exitCodes.reached : exitCodes.failed;
}


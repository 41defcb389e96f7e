// `stagewatch observe`: what an apply tool runs after `kubectl apply` or `helm upgrade`. It sends
// identities only (never manifest content), prints progress on stderr for the person watching the
// CI log, and the verdict on stdout for the script; the exit code says which of the four
// situations it is (usage.ts). The service decides when NATS is configured; with none, the same
// engine decides in this process (local mode, observationMode.ts and localSession.ts, loaded only
// then: they bring the Kubernetes client).
import { randomUUID } from "node:crypto";
// The bus client's own modules rather than bus/index.js, which also brings the service's side
// (KV records, leases, the request server): observe's start-up is what every CI job pays.
import { connectObserver, type ObservationRun } from "../../bus/client/client.js";
import { ObservationRejectedError } from "../../bus/client/clientErrors.js";
import { natsConfigFromEnv } from "../../bus/connectionOptions.js";
import { ObservationRequest, defaultVerifyFailOn, type ObservationMode, type ObservationRequestInput, type ObservationVerdict, type Stage } from "../../verdicts/contract/schemas.js";
import { describeIssues, parseWith } from "../../verdicts/contract/validation.js";
import { parseCommandArgs } from "../inputs/args.js";
import type { CommandIo } from "../io/commandIo.js";
import { parseFailOnFlag } from "../inputs/failOnFlag.js";
import { analysesOptions, readAnalysesFlags } from "../inputs/analysesFlags.js";
import { writeVerdictFile } from "../io/verdictFile.js";
import { durationFlagSeconds } from "../inputs/duration.js";
import { failureLogText } from "../views/failureLogText.js";
import { kubeconfigNamespace } from "../inputs/kubeconfigNamespace.js";
import { readDeclaredResources } from "../inputs/manifests.js";
import { observationMode, type ObserveSession } from "../local/observationMode.js";
import type { JsonProgress } from "../views/jsonProgress.js";
import { progressUntilVerdict } from "../views/progressUntilVerdict.js";
import type { ProgressView } from "../views/progressViews.js";
import { resolveSubjectPrefix, subjectPrefixHelp, subjectPrefixOption } from "../inputs/subjectPrefix.js";
import { exitCodes, UsageError } from "../io/usage.js";
import {
  allowUnverifiedOption,
  rejectionReport,
  resolveVerifyKeys,
  unverifiedSuccess,
  unverifiedSuccessNotice,
  verificationNotice,
  verifyKeyHelp,
  verifyKeyOption,
} from "./verification.js";

export const observeUsage = `Usage: stagewatch observe -f FILE_OR_DIR... --deployment NAME [flags]

Observes the resources declared in the manifests until the required stage, a failure or the
timeout, and prints the verdict. With NATS configured (NATS_URL, NATS credentials, --nats-url)
the stagewatch service decides; with none, the same engine runs in this process against the
kubeconfig (local mode: namespaced watches of the declared namespaces only, nothing kept after exit).

Flags:
  -f, --filename PATH     manifest file or directory (repeatable; .yaml, .yml, .json); '-' reads
                          standard input: kubectl apply -o json|yaml, helm get manifest. Objects
                          carrying metadata.generation (server output) are observed at that generation
  --deployment NAME       the deployment these resources belong to (a-z, 0-9, '-')
  --require STAGE         applied, bootstrapped, healthy or verified (default healthy); verified:
                          healthy, then the new revision's pods hold for --verify-window
  --verify-window DURATION
                          with --require verified: how long after healthy no pod of the new
                          revision may restart, flap readiness, be OOMKilled or evicted, or draw a
                          --verify-fail-on Warning (inside --timeout, which must be longer)
  --verify-fail-on R1,R2  with --require verified: Warning event reasons that fail the window
                          (default ${defaultVerifyFailOn.join(",")})
  --analysis NAME[:ARG=VALUE,...]
                          with --require verified: run the metric check NAME of the service's
                          --analyses (local mode: of --analyses FILE) through the window, with the
                          arguments it declares (repeatable; e.g. error-rate:route=/checkout)
  --timeout DURATION      total budget, e.g. 300, 90s, 5m, 1h30m (default 5m)
  --stall DURATION|auto   say "stalled" on stderr when nothing moved this long (default 2m; 0: never);
                          auto: once the rollout takes longer to reach its next stage than 95% of
                          this deployment's earlier rollouts did (with fewer than 3, the default)
  --traceparent TP        join this W3C trace: the service exports the observation as spans under
                          it (default: $TRACEPARENT, with $TRACESTATE)
  --key KEY               idempotency key: a retry with the same key follows the same observation
                          (default: a new key each run; service mode only: nothing outlives a local run)
  --namespace NS          namespace of resources that declare none (default: the kubeconfig
                          context's namespace, else "default": where kubectl apply put them)
  --fail-on R1,R2:D       reasons that are terminal: pod waiting reasons, Ready=False reasons and
                          Warning event reasons such as FailedCreate; at once, or once held for
                          the grace D after a ':' (CrashLoopBackOff:2m). Default: the service's,
                          ImagePullBackOff,InvalidImageName unless serve --fail-on; 'stagewatch reasons'
                          lists them with the grace to give each
  --load-balancer-address wait|ignore
                          wait (default) for a LoadBalancer Service's address, or settle it
                          without one (clusters with no load-balancer controller: kind, bare metal)
  --logs                  on a failure, print the failing container's last log lines (read once,
                          scrubbed; the service needs serve --container-logs, local mode your
                          own get on pods/log)
  --json                  print the verdict as JSON, with "mode": local or service (who decided), and
                          "verified": whether it was verified with a trusted key
  --verdict-file FILE     also write the verdict as evidence for the CI job's artifacts: its
                          in-toto attestation (a DSSE envelope the service signed, for cosign,
                          in-toto or Kyverno with the key of 'stagewatch keys pem'), or, when the
                          service attested none, the signed verdict; 'stagewatch verify FILE'
                          checks either
${verifyKeyHelp}
  --progress MODE         auto, tty, plain or json (default auto: tty when stderr is a terminal): tty
                          redraws one line per resource in place, plain prints one line per change,
                          json one JSON object a line, the events the service publishes and
                          observe's own notices (schema/json/ProgressLine.json), for CI systems
                          and agents
${subjectPrefixHelp}
  --mode local|service    force a mode (default: service when NATS is configured, else local); NATS
                          configured and unreachable is exit 3, never a fallback to local mode
  --nats-url URL          NATS server(s) of the service, comma separated (default $NATS_URL);
                          --server is the same flag
  --kubeconfig FILE       local mode's cluster (default $KUBECONFIG, ~/.kube/config, in-cluster);
                          also where --namespace's default is read from in both modes
  --context NAME          a context of the kubeconfig other than its current one
  --health-checks FILE    local mode: CEL health checks for custom kinds, as 'serve --health-checks'
  --analyses FILE, --prometheus-url URL, --prometheus-*
                          local mode: the metric checks --analysis names and the Prometheus they
                          query, as 'serve --analyses' and its --prometheus-* flags
  -h, --help

Environment: NATS_URL and NATS credentials as for 'stagewatch serve'; STAGEWATCH_SUBJECT_PREFIX;
STAGEWATCH_VERIFY_KEY; KUBECONFIG; TRACEPARENT and TRACESTATE (the trace a CI pipeline runs in).
Exit codes: 0 reached, 1 failed or timed out, 2 bad input, 3 no observer, NATS or API server
unreachable, or (service mode) a succeeded verdict that could not be verified with a trusted key.
`;

function parseObserveArgs(argv: readonly string[]) {
  return parseCommandArgs(argv, {
    filename: { type: "string", short: "f", multiple: true },
    deployment: { type: "string" },
    require: { type: "string", default: "healthy" },
    timeout: { type: "string", default: "5m" },
    stall: { type: "string" },
    traceparent: { type: "string" },
    key: { type: "string" },
    namespace: { type: "string" },
    "fail-on": { type: "string" },
    "verify-window": { type: "string" },
    "verify-fail-on": { type: "string" },
    analysis: { type: "string", multiple: true },
    ...analysesOptions,
    "load-balancer-address": { type: "string" },
    json: { type: "boolean", default: false },
    logs: { type: "boolean", default: false },
    progress: { type: "string", default: "auto" },
    "verdict-file": { type: "string" },
    ...verifyKeyOption,
    ...allowUnverifiedOption,
    ...subjectPrefixOption,
    mode: { type: "string" },
    "nats-url": { type: "string" },
    server: { type: "string" },
    kubeconfig: { type: "string" },
    context: { type: "string" },
    "health-checks": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
}

export async function observeCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseObserveArgs(argv);
  if (values.help) {
    io.stdout.write(observeUsage);
    return exitCodes.reached;
  }
  const filenames = values.filename;
  if (!filenames?.length) throw new UsageError("-f/--filename: required (a manifest file or directory)");
  const deployment = values.deployment;
  if (!deployment) throw new UsageError("--deployment: required");
  const timeoutSeconds = durationFlagSeconds("--timeout", values.timeout);
  if (!progressModes.includes(values.progress as ProgressMode)) {
    throw new UsageError(`--progress: must be one of ${progressModes.join(", ")}`);
  }
  if (values["nats-url"] !== undefined && values.server !== undefined) throw new UsageError("--nats-url and --server are the same flag: give one");
  const natsUrlFlag = values["nats-url"] ?? values.server;
  const env = natsUrlFlag === undefined ? io.env : { ...io.env, NATS_URL: natsUrlFlag };
  const verifyKeys = resolveVerifyKeys(values["verify-key"], env);
  const mode = observationMode({ flag: values.mode, natsUrlFlag, verifyKeyGiven: verifyKeys.length > 0 }, env);
  if (mode === "local" && values["verify-key"] !== undefined) throw new UsageError("--verify-key: local mode signs nothing (the verdict is this process's own); verify keys are for the service's verdicts");
  if (mode === "service" && values["health-checks"] !== undefined) throw new UsageError("--health-checks: in service mode the service's own --health-checks decide; this flag is for local mode");
  const localFlag = (Object.keys(analysesOptions) as (keyof typeof analysesOptions)[]).find((flag) => values[flag] !== undefined);
  if (mode === "service" && localFlag !== undefined) throw new UsageError(`--${localFlag}: in service mode the service's own --analyses and Prometheus measure; this flag is for local mode`);
  const settings = { values, filenames, deployment, env, mode, verifyKeys, timeoutSeconds };
  if (values.progress !== "json") {
    const live = values.progress === "tty" || (values.progress === "auto" && io.stderr.isTTY === true);
    return observeWith({ ...settings, io, progress: { type: live ? "live" : "plain" } });
  }
  // From here on every line on stderr is JSON: observe's notices, and the error that ends it (with
  // the exit code it has in the other modes), are `notice` lines.
  const lines = (await import("../views/jsonProgress.js")).jsonProgress((text) => io.stderr.write(text));
  try {
    return await observeWith({ ...settings, io: { ...io, stderr: lines.notices }, progress: { type: "json", lines } });
  } catch (error) {
    const { reportError } = await import("../errorReport.js");
    return reportError(error, lines.notices);
  }
}

/** How observe shows progress: a person's live screen or plain lines, or JSON lines for a parser. */
type ProgressOutput = { type: "live" } | { type: "plain" } | { type: "json"; lines: JsonProgress };

interface ObserveSettings {
  values: ReturnType<typeof parseObserveArgs>["values"];
  filenames: string[];
  deployment: string;
  /** Its stderr takes text lines only: under --progress json they become `notice` lines. */
  io: CommandIo;
  env: NodeJS.ProcessEnv;
  mode: ObservationMode;
  verifyKeys: ReturnType<typeof resolveVerifyKeys>;
  timeoutSeconds: number;
  progress: ProgressOutput;
}

async function observeWith({ values, filenames, deployment, io, env, mode, verifyKeys, timeoutSeconds, progress }: ObserveSettings): Promise<number> {
  const kubeconfigChoice = { file: values.kubeconfig, context: values.context };

  const verifyFlag = (["verify-window", "verify-fail-on", "analysis"] as const).find((flag) => values[flag] !== undefined);
  if (values.require !== "verified" && verifyFlag !== undefined) throw new UsageError(`--${verifyFlag}: only with --require verified`);
  // Read before connecting: a bad analyses file is bad input, whatever the cluster's state.
  const analyses = mode === "local" ? readAnalysesFlags(values) : undefined;
  if (values.require === "verified" && values["verify-window"] === undefined) throw new UsageError("--verify-window: required with --require verified (e.g. 5m)");
  const resources = await readDeclaredResources(filenames, { readStdin: io.readStdin });
  const namespaceEnv = values.kubeconfig === undefined ? env : { ...env, KUBECONFIG: values.kubeconfig };
  const request: ObservationRequestInput = {
    key: values.key ?? `${deployment}/${randomUUID()}`,
    deployment,
    require: values.require as Stage,
    timeoutSeconds,
    ...(values.stall !== undefined && { stallSeconds: values.stall === "auto" ? "auto" : durationFlagSeconds("--stall", values.stall) }),
    ...traceContext(values.traceparent, env),
    defaultNamespace:
      values.namespace ??
      (await kubeconfigNamespace(namespaceEnv, { ...(env["HOME"] !== undefined && { home: env["HOME"] }), ...(values.context !== undefined && { context: values.context }) })),
    resources,
    ...(values["fail-on"] !== undefined && { failOn: parseFailOnFlag("--fail-on", values["fail-on"]) }),
    ...(values["verify-window"] !== undefined && {
      verify: {
        windowSeconds: durationFlagSeconds("--verify-window", values["verify-window"]),
        ...(values["verify-fail-on"] !== undefined && { failOn: reasonList(values["verify-fail-on"]) }),
        ...(values.analysis !== undefined && { analyses: values.analysis.map(analysisFlag) }),
      },
    }),
    ...(values.logs && { logs: true }),
    ...(values["load-balancer-address"] !== undefined && { loadBalancerAddress: values["load-balancer-address"] as ObservationRequestInput["loadBalancerAddress"] }),
  };
  // Checked before connecting, although the client checks again: a typo (`--require rendered`,
  // `--deployment Web_1`) is bad input (2) even while NATS is down, never "unreachable" (3), which
  // a CI script may retry.
  const valid = parseWith(ObservationRequest, request);
  if (!valid.ok) throw new ObservationRejectedError("invalid_request", "invalid observation request", valid.issues);

  const session =
    mode === "local"
      ? await (await import("../local/localSession.js")).openLocalSession(valid.value, { env, kubeconfig: kubeconfigChoice, healthChecksFile: values["health-checks"], analyses, keyGiven: values.key !== undefined, stderr: io.stderr })
      : await openServiceSession(request, { env, prefix: resolveSubjectPrefix(values["subject-prefix"], env), verifyKey: verifyKeys.map((key) => key.publicKey) });
  try {
    const { run } = session;
    if (progress.type === "json") progress.lines.observing({ observationId: run.observationId, deployment, mode, replay: run.replay, resources: resources.length });
    else io.stderr.write(`observing ${resources.length} resource${resources.length === 1 ? "" : "s"} as ${run.observationId}${run.replay ? " (replay)" : ""}${mode === "local" ? " in this process (local mode)" : ""}\n`);
    // The views (and the rules' descriptions they print) load once the request is on its way: the
    // events that arrive meanwhile wait in the run's queue.
    const { liveView, plainView } = await import("../views/progressViews.js");
    const verifyWindowMs = valid.value.verify && valid.value.verify.windowSeconds * 1000;
    const view: ProgressView =
      progress.type === "json"
        ? progress.lines.view
        : progress.type === "live"
          ? liveView({
            terminal: io.stderr,
            start: {
              deployment: request.deployment,
              observationId: run.observationId,
              required: request.require,
              startedAtMs: Date.now(),
              deadlineMs: Date.now() + timeoutSeconds * 1000,
              verifyWindowMs,
            },
            // The engine's clock and resolved namespaces, and on a replay the readings so far; the
            // view starts from the local guess when it does not answer.
            current: await session.current().catch(() => undefined),
            colour: env["NO_COLOR"] === undefined || env["NO_COLOR"] === "",
          })
          : plainView((text) => io.stderr.write(text), undefined, verifyWindowMs);
    // A person is shown the verdict the moment it is known; a parser is given every event to the
    // verdict event, the stream's last (a few milliseconds more: progressUntilVerdict.ts).
    const events = progress.type === "json" ? run.progress : progressUntilVerdict(run.progress, run.verdict);
    for await (const event of events) view.event(event);
    const verdict = await run.verdict;
    view.finish(verdict);
    if (values["verdict-file"] !== undefined) {
      const note = await writeVerdictFile(values["verdict-file"], verdict);
      if (note) io.stderr.write(note);
    }
    const { verification } = session;
    // `mode` and `verified` are observe's own notes beside the verdict, not part of what the service signed.
    io.stdout.write(values.json ? `${JSON.stringify({ ...verdict, mode, verified: verification?.trusted ?? false }, null, 2)}\n` : `${verdict.message}\n${failureLogText(verdict.failure)}`);
    if (verification === undefined) {
      io.stderr.write(localNotice);
      return exitCodeOf(verdict);
    }
    const notice = verificationNotice(verification);
    if (notice) io.stderr.write(notice);
    if (unverifiedSuccess(verdict, verification, values["allow-unverified"])) {
      io.stderr.write(unverifiedSuccessNotice);
      return exitCodes.unavailable;
    }
    return exitCodeOf(verdict);
  } finally {
    const note = await session.close();
    if (note) io.stderr.write(note);
  }
}

/** The line after a local verdict, in place of the service's "not verified": who decided it. */
const localNotice = "stagewatch: decided in this process (local mode: no NATS configured); set NATS_URL to ask the service\n";

async function openServiceSession(request: ObservationRequestInput, options: { env: NodeJS.ProcessEnv; prefix: string; verifyKey: string[] }): Promise<ObserveSession> {
  const nats = natsConfigFromEnv(options.env);
  if (!nats.ok) throw new UsageError(`NATS settings: ${describeIssues(nats.issues)}`);
  const rejections = rejectionReport();
  const observer = await connectObserver({ ...nats.value, prefix: options.prefix, verifyKey: options.verifyKey, logger: rejections.logger });
  // The connection's close is started, not awaited: the request was answered, so nothing is left to
  // send, and the server drops the subscriptions and leaves the ephemeral consumer to its inactive
  // threshold whether the socket ends after a flush or at the process's exit. Awaiting it (the
  // consumer's iterator, then the transport's flush) cost each exit after the verdict's print 0.5 ms
  // on a quiet machine and 2 to 3 ms under load; cli.ts exits once stdout and stderr are written,
  // and an in-process caller sees the close finish a moment later.
  const close = async () => {
    const rejected = rejections.line(observer.rejected);
    void observer.close().catch(() => {});
    return rejected;
  };
  let run: ObservationRun;
  try {
    run = await observer.observe(request);
  } catch (error) {
    await close();
    throw error;
  }
  return { run, current: () => observer.get(run.observationId), verification: observer.verification, close };
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

const progressModes = ["auto", "tty", "plain", "json"] as const;
type ProgressMode = (typeof progressModes)[number];

export function exitCodeOf(verdict: ObservationVerdict): number {
  return verdict.outcome === "succeeded" ? exitCodes.reached : exitCodes.failed;
}

/** `--analysis error-rate:route=/checkout,quantile=0.99`: a name, then its arguments (the request's schema checks both). */
function analysisFlag(text: string): { name: string; args: Record<string, string> } {
  const colon = text.indexOf(":");
  const name = colon < 0 ? text : text.slice(0, colon);
  const args: Record<string, string> = {};
  for (const pair of colon < 0 ? [] : text.slice(colon + 1).split(",")) {
    const equals = pair.indexOf("=");
    if (equals < 1) throw new UsageError(`--analysis: '${pair}' in '${text}' is not ARG=VALUE`);
    args[pair.slice(0, equals).trim()] = pair.slice(equals + 1);
  }
  return { name: name.trim(), args };
}

/** A comma-separated list of reasons as a flag takes it (`--fail-on A, B`). */
function reasonList(flag: string): string[] {
  return flag.split(",").map((reason) => reason.trim()).filter(Boolean);
}

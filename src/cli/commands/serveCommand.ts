// `stagewatch serve`: flags for what differs between deployments of the service, environment
// variables for what a Kubernetes Secret provides (NATS credentials), as the Helm chart passes them.
import { pino } from "pino";
import { natsConfigFromEnv } from "../../bus/index.js";
import { startService } from "../../service/service.js";
import { serviceDefaults, serviceSettings } from "../../service/settings.js";
import { formatDuration } from "../../verdicts/text/text.js";
import { ClusterName, defaultFailOn, describeIssues, NamespaceName } from "../../verdicts/index.js";
import type { SigningKey, VerifyKey } from "../../signing/index.js";
import { traceExportFromEnv, TraceSettingsError, type TraceExportChoice } from "../../tracing/index.js";
import { booleanFlag, parseCommandArgs } from "../inputs/args.js";
import { byteSizeFlag, countFlag } from "../inputs/byteSize.js";
import { durationFlagSeconds } from "../inputs/duration.js";
import { parseFailOnFlag } from "../inputs/failOnFlag.js";
import { readHealthChecks } from "../inputs/healthChecksFile.js";
import { analysesHelp, analysesOptions, readAnalysesFlags } from "../inputs/analysesFlags.js";
import { readSigningKey, signingKeyFileVariable } from "../inputs/signingKeyFile.js";
import { resolveSubjectPrefix, subjectPrefixHelp, subjectPrefixOption } from "../inputs/subjectPrefix.js";
import { readTenants, tenantsFileVariable } from "../inputs/tenantsFileReading.js";
import { resolveVerifyKeys } from "./verification.js";
import type { CommandIo } from "../io/commandIo.js";
import { UsageError } from "../io/usage.js";

const defaults = serviceDefaults;

export const serveUsage = `Usage: stagewatch serve [flags]

Runs the observer: watches the cluster, answers observation requests on NATS, publishes verdicts.

Flags:
  --namespaces a,b        watch only these namespaces (default: the whole cluster)
  --secret-namespaces a,b with the whole cluster watched, check Secrets only in these namespaces
                          (empty: in none), so the service needs no cluster-wide list on Secrets
                          (default: everywhere; the chart gives rbac.secretNamespaces)
  --metrics-host HOST     address of /metrics, /healthz, /readyz (default ${defaults.metricsHost})
  --metrics-port PORT     (default ${defaults.metricsPort}; 0 picks a free port)
${subjectPrefixHelp}
  --log-level LEVEL       trace, debug, info, warn, error (default info)
  --replica-id ID         this replica's id in leases and logs (default: $STAGEWATCH_REPLICA_ID,
                          else host name and a random suffix); keep it unique per running process
  --jetstream-replicas N  copies of the event stream and KV buckets (default ${defaults.jetstreamReplicas}; 3 on a 3-node cluster)
  --lease-duration D      how long a lease holds unrenewed: the longest an observation waits
                          for a new owner after a crash (default ${formatDuration(defaults.leaseDurationMs)})
  --shutdown-grace D      how long SIGTERM waits for verdicts and events going out (default ${formatDuration(defaults.shutdownGraceMs)})
  --health-checks FILE    CEL health checks for custom kinds (YAML or JSON: healthChecks:
                          [{apiVersion, kind, current, inProgress?, failed?}], as Flux's healthCheckExprs)
  --warning-events=BOOL   show the newest Warning event of each pending resource, its ReplicaSets
                          and pods in progress events and verdicts (default ${defaults.warningEvents}; needs events
                          list and watch)
  --fail-on R1,R2:D       the failOn of requests that name none, each reason at once or after the
                          grace D (CrashLoopBackOff:2m); a request naming its own may add reasons and
                          shorten graces, never drop one of these or lengthen its grace (default
                          ${defaultFailOn.join(",")}, and requests replace it freely; 'stagewatch reasons')
${analysesHelp}
  --container-logs        read the failing container's last log lines into the verdict for
                          requests that ask (logs: true); needs get on pods/log (default off:
                          such requests get a note instead)
  --signing-key FILE      sign every verdict and event with the key pair in FILE (an nkeys seed:
                          'stagewatch keys create FILE'; default: $${signingKeyFileVariable};
                          none: nothing is signed, and clients cannot tell a forged verdict)
  --cluster-name NAME     the cluster's name in each verdict's in-toto attestation (lowercase
                          letters, digits, '-' and '.'; default: $STAGEWATCH_CLUSTER_NAME; none:
                          attestations name no cluster)

Limits (docs/operator/limits.md; each refusal names its limit):
  --max-in-flight N       observations in flight on this replica, every caller together (default ${defaults.maxInFlight})
  --replicas N            the replicas running: the per-caller limits below, and a tenant's
                          quotas, hold for the service as a whole, each replica taking its
                          share (default ${defaults.replicas}; the chart gives its replicaCount)
  --max-in-flight-per-caller N
                          observations in flight for one caller (default ${defaults.maxInFlightPerCaller})
  --requests-per-second N new observation requests a second for one caller (default ${defaults.requestsPerSecond})
  --gets-per-second N     get requests a second for one caller (default ${defaults.getsPerSecond})
  --cancels-per-second N  cancel requests a second for one caller (default ${defaults.cancelsPerSecond})
  --lists-per-second N    list requests a second for one caller (default ${defaults.listsPerSecond})
  --max-pending-per-caller N
                          requests of one caller waiting or being handled at once (default ${defaults.maxPendingPerCaller})
  --event-stream-max-bytes SIZE
                          the event streams' bytes (with --tenants, split evenly among a stream per
                          tenant and the tenantless one); the oldest events go first (default ${formatBytes(defaults.eventStreamMaxBytes)})
  --max-events-per-observation N
                          events kept per observation; its oldest go first (default ${defaults.maxEventsPerObservation})
  --records-max-bytes SIZE
                          the records bucket's bytes; when full, new observations are refused (default ${formatBytes(defaults.recordsMaxBytes)})
  --leases-max-bytes SIZE the leases bucket's bytes (default ${formatBytes(defaults.leasesMaxBytes)})
  --max-log-reads N       container log reads at once (default ${defaults.maxLogReads})
  --max-deployment-labels N
                          deployments stage_reached_seconds names; later ones are counted as
                          deployment="(other)" (default ${defaults.maxDeploymentLabels})
  --cel-cost-limit N      the estimated cost past which a CEL health check is not evaluated on
                          an object: HealthCheckError (default ${defaults.celCostLimit})
  --jetstream-wait D      how long start-up waits for JetStream (a fresh cluster electing its
                          leaders) before exiting 3 (default ${formatDuration(defaults.jetstreamWaitMs)})
  --tenants FILE          the tenants file (YAML or JSON: tenants: {ACCOUNT: {namespaces,
                          clusterScoped, logTails, quotas} | {admin: true}}): requests are then
                          taken only from those NATS accounts, through their service imports,
                          each scoped to its own (default: $${tenantsFileVariable}; none: one
                          caller, everything allowed)
  -h, --help

Environment:
  KUBECONFIG              kubeconfig file (default: in-cluster service account)
  NATS_URL                NATS server(s), comma-separated (default nats://127.0.0.1:4222)
  NATS_CREDS_FILE | NATS_TOKEN | NATS_USER + NATS_PASSWORD    NATS credentials
  NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE     NATS TLS
  STAGEWATCH_SUBJECT_PREFIX   the subject prefix when --subject-prefix is not given
  STAGEWATCH_VERIFY_KEY   the public keys clients verify with (the chart's ConfigMap): the
                          signing key's must be among them; the others (a rotation's previous
                          key) are trusted in records and on the stream too
  OTEL_EXPORTER_OTLP_ENDPOINT | OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
                          export each decided observation as a trace (OTLP/HTTP protobuf; off
                          when unset); the other OTEL_* variables as OpenTelemetry defines them
`;

const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export async function serveCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    namespaces: { type: "string" },
    "secret-namespaces": { type: "string" },
    "metrics-host": { type: "string" },
    "metrics-port": { type: "string" },
    ...subjectPrefixOption,
    "log-level": { type: "string", default: "info" },
    "replica-id": { type: "string" },
    "jetstream-replicas": { type: "string" },
    "lease-duration": { type: "string" },
    "shutdown-grace": { type: "string" },
    "health-checks": { type: "string" },
    "warning-events": { type: "string" },
    "container-logs": { type: "boolean" },
    "fail-on": { type: "string" },
    ...analysesOptions,
    "signing-key": { type: "string" },
    "cluster-name": { type: "string" },
    "max-in-flight": { type: "string" },
    replicas: { type: "string" },
    "max-in-flight-per-caller": { type: "string" },
    "requests-per-second": { type: "string" },
    "gets-per-second": { type: "string" },
    "cancels-per-second": { type: "string" },
    "lists-per-second": { type: "string" },
    "max-pending-per-caller": { type: "string" },
    "event-stream-max-bytes": { type: "string" },
    "max-events-per-observation": { type: "string" },
    "records-max-bytes": { type: "string" },
    "leases-max-bytes": { type: "string" },
    "max-log-reads": { type: "string" },
    "max-deployment-labels": { type: "string" },
    "cel-cost-limit": { type: "string" },
    "jetstream-wait": { type: "string" },
    tenants: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.stdout.write(serveUsage);
    return 0;
  }
  const port = optional(values["metrics-port"], Number);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError(`--metrics-port: '${values["metrics-port"]}' is not a port`);
  if (!logLevels.includes(values["log-level"])) throw new UsageError(`--log-level: must be one of ${logLevels.join(", ")}`);
  const namespaces = values.namespaces?.split(",").map((n) => n.trim()).filter((n) => n !== "");
  for (const namespace of namespaces ?? []) {
    if (!NamespaceName.safeParse(namespace).success) throw new UsageError(`--namespaces: '${namespace}' is not a namespace name`);
  }
  const secretNamespaces = values["secret-namespaces"]?.split(",").map((n) => n.trim()).filter((n) => n !== "");
  for (const namespace of secretNamespaces ?? []) {
    if (!NamespaceName.safeParse(namespace).success) throw new UsageError(`--secret-namespaces: '${namespace}' is not a namespace name`);
  }
  const jetstreamReplicas = optional(values["jetstream-replicas"], Number);
  if (jetstreamReplicas !== undefined && (!Number.isInteger(jetstreamReplicas) || jetstreamReplicas < 1 || jetstreamReplicas > 5)) {
    throw new UsageError(`--jetstream-replicas: '${values["jetstream-replicas"]}' must be a whole number from 1 to 5`);
  }
  const leaseDurationSeconds = optional(values["lease-duration"], (text) => durationFlagSeconds("--lease-duration", text));
  if (leaseDurationSeconds !== undefined && leaseDurationSeconds < 1) throw new UsageError("--lease-duration: at least 1s");
  const shutdownGraceSeconds = optional(values["shutdown-grace"], (text) => durationFlagSeconds("--shutdown-grace", text));
  const replicaId = values["replica-id"] ?? io.env.STAGEWATCH_REPLICA_ID;
  if (replicaId !== undefined && !/^[A-Za-z0-9._-]{1,253}$/.test(replicaId)) throw new UsageError(`--replica-id: '${replicaId}' may hold letters, digits, '.', '_' and '-' only`);
  const warningEvents = optional(values["warning-events"], (text) => booleanFlag("warning-events", text));
  const count = (flag: keyof typeof values) => optional(values[flag] as string | undefined, (text) => countFlag(`--${flag}`, text));
  const bytes = (flag: keyof typeof values) => optional(values[flag] as string | undefined, (text) => byteSizeFlag(`--${flag}`, text));
  const celCostLimit = count("cel-cost-limit");
  const healthChecks = optional(values["health-checks"], (path) => readHealthChecks(path, { ...(celCostLimit !== undefined && { costLimit: celCostLimit }) }));
  const jetstreamWaitSeconds = optional(values["jetstream-wait"], (text) => durationFlagSeconds("--jetstream-wait", text));
  const nats = natsConfigFromEnv(io.env);
  if (!nats.ok) throw new UsageError(`NATS settings: ${describeIssues(nats.issues)}`);
  const signing = signingKeys(values["signing-key"], io.env);
  const clusterName = optional(values["cluster-name"] ?? (io.env["STAGEWATCH_CLUSTER_NAME"] || undefined), (name) => {
    const parsed = ClusterName.safeParse(name);
    if (!parsed.success) throw new UsageError(`--cluster-name: '${name}' ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
  const tenants = readTenants(values.tenants, io.env);
  const analyses = readAnalysesFlags(values);
  const traces = tracesFromEnv(io.env);

  const settings = serviceSettings({
    nats: nats.value,
    ...(namespaces && namespaces.length > 0 && { namespaces }),
    ...(secretNamespaces && { secretNamespaces }),
    metricsHost: values["metrics-host"],
    metricsPort: port,
    subjectPrefix: resolveSubjectPrefix(values["subject-prefix"], io.env),
    ...(healthChecks && { healthChecks }),
    warningEvents,
    replicaId,
    jetstreamReplicas,
    leaseDurationMs: optional(leaseDurationSeconds, (seconds) => seconds * 1000),
    shutdownGraceMs: optional(shutdownGraceSeconds, (seconds) => seconds * 1000),
    containerLogs: values["container-logs"],
    ...(values["fail-on"] !== undefined && { failOn: parseFailOnFlag("--fail-on", values["fail-on"]) }),
    ...(analyses && { analyses }),
    maxInFlight: count("max-in-flight"),
    replicas: count("replicas"),
    maxInFlightPerCaller: count("max-in-flight-per-caller"),
    requestsPerSecond: count("requests-per-second"),
    getsPerSecond: count("gets-per-second"),
    cancelsPerSecond: count("cancels-per-second"),
    listsPerSecond: count("lists-per-second"),
    maxPendingPerCaller: count("max-pending-per-caller"),
    eventStreamMaxBytes: bytes("event-stream-max-bytes"),
    maxEventsPerObservation: count("max-events-per-observation"),
    recordsMaxBytes: bytes("records-max-bytes"),
    leasesMaxBytes: bytes("leases-max-bytes"),
    maxLogReads: count("max-log-reads"),
    maxDeploymentLabels: count("max-deployment-labels"),
    jetstreamWaitMs: optional(jetstreamWaitSeconds, (seconds) => seconds * 1000),
    ...signing,
    ...(clusterName !== undefined && { clusterName }),
    ...(tenants && { tenants }),
    traces,
    logger: pino({ level: values["log-level"], base: null }),
  });
  // The replica id is in every line: the settings chose it when the flag and environment did not.
  const logger = settings.logger.child({ service: "stagewatch", replica: settings.replicaId });
  const service = await startService({ ...settings, logger });

  const signal = await new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
    void service.closed.then(() => resolve("nats-closed"));
  });
  logger.info({ signal }, "stopping");
  await service.stop();
  return signal === "nats-closed" ? 1 : 0;
}

/** Trace export from the OTEL_* variables (docs/user/tracing.md); a value it cannot use is bad input, named. */
function tracesFromEnv(env: NodeJS.ProcessEnv): TraceExportChoice {
  try {
    return traceExportFromEnv(env);
  } catch (error) {
    if (error instanceof TraceSettingsError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * The signing key (the flag, else the variable) and the keys trusted besides it. Clients are
 * given $STAGEWATCH_VERIFY_KEY (the chart publishes it): if the signing key is not among them, or
 * there is none, every verdict would be rejected, so that is refused at start rather than found
 * by a CI job.
 */
function signingKeys(flag: string | undefined, env: NodeJS.ProcessEnv): { signingKey?: SigningKey; trustedKeys?: VerifyKey[] } {
  const fromEnv = env[signingKeyFileVariable];
  const path = flag ?? (fromEnv === "" ? undefined : fromEnv);
  const trusted = resolveVerifyKeys(undefined, env);
  if (path === undefined) {
    if (trusted.length > 0) throw new UsageError("STAGEWATCH_VERIFY_KEY is set but no signing key is given (--signing-key): clients given those keys would reject every verdict");
    return {};
  }
  const signingKey = readSigningKey(path, flag === undefined ? signingKeyFileVariable : "--signing-key");
  if (trusted.length > 0 && !trusted.some((key) => key.publicKey === signingKey.publicKey)) {
    throw new UsageError(`STAGEWATCH_VERIFY_KEY does not list the signing key's public key ${signingKey.publicKey}: clients given those keys would reject every verdict`);
  }
  return { signingKey, trustedKeys: trusted.filter((key) => key.publicKey !== signingKey.publicKey) };
}

/** `1GiB`, `512MiB`: how the help shows a default size. */
function formatBytes(bytes: number): string {
  for (const [unit, size] of [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024]] as const) if (bytes % size === 0) return `${bytes / size}${unit}`;
  return `${bytes}`;
}

/** `parse(text)` for a flag the user gave; undefined (the service's default) otherwise. */
function optional<T, R>(value: T | undefined, parse: (value: T) => R): R | undefined {
  return value === undefined ? undefined : parse(value);
}

// `stagewatch serve`: flags for what differs between deployments of the service, environment
// variables for what a Kubernetes Secret provides (NATS credentials), as the Helm chart passes them.
import { pino } from "pino";
import { natsConfigFromEnv } from "../bus/index.js";
import { startService } from "../service/service.js";
import { describeIssues, NamespaceName } from "../verdicts/index.js";
import { parseCommandArgs } from "./args.js";
import { readHealthChecks } from "./healthChecksFile.js";
import { UsageError } from "./usage.js";

export const serveUsage = `Usage: stagewatch serve [flags]

Runs the observer: watches the cluster, answers observation requests on NATS, publishes verdicts.

Flags:
  --namespaces a,b        watch only these namespaces (default: the whole cluster)
  --metrics-host HOST     address of /metrics, /healthz, /readyz (default 0.0.0.0)
  --metrics-port PORT     (default 9090; 0 picks a free port)
  --subject-prefix P      NATS subject prefix (default stagewatch)
  --log-level LEVEL       trace, debug, info, warn, error (default info)
  --health-checks FILE    CEL health checks for custom kinds (YAML or JSON: healthChecks:
                          [{apiVersion, kind, current, inProgress?, failed?}], as Flux's healthCheckExprs)
  -h, --help

Environment:
  KUBECONFIG              kubeconfig file (default: in-cluster service account)
  NATS_URL                NATS server(s), comma-separated (default nats://127.0.0.1:4222)
  NATS_CREDS_FILE | NATS_TOKEN | NATS_USER + NATS_PASSWORD    NATS credentials
  NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE     NATS TLS
`;

const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export async function serveCommand(argv: readonly string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    namespaces: { type: "string" },
    "metrics-host": { type: "string", default: "0.0.0.0" },
    "metrics-port": { type: "string", default: "9090" },
    "subject-prefix": { type: "string", default: "stagewatch" },
    "log-level": { type: "string", default: "info" },
    "health-checks": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    process.stdout.write(serveUsage);
    return 0;
  }
  const port = Number(values["metrics-port"]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--metrics-port: '${values["metrics-port"]}' is not a port`);
  if (!logLevels.includes(values["log-level"])) throw new UsageError(`--log-level: must be one of ${logLevels.join(", ")}`);
  const namespaces = values.namespaces?.split(",").map((n) => n.trim()).filter((n) => n !== "");
  for (const namespace of namespaces ?? []) {
    if (!NamespaceName.safeParse(namespace).success) throw new UsageError(`--namespaces: '${namespace}' is not a namespace name`);
  }
  const healthChecks = values["health-checks"] === undefined ? undefined : readHealthChecks(values["health-checks"]);
  const nats = natsConfigFromEnv(process.env);
  if (!nats.ok) throw new UsageError(`NATS settings: ${describeIssues(nats.issues)}`);

  const logger = pino({ level: values["log-level"], base: { service: "stagewatch" } });
  const service = await startService({
    nats: nats.value,
    ...(namespaces && namespaces.length > 0 && { namespaces }),
    metricsHost: values["metrics-host"],
    metricsPort: port,
    subjectPrefix: values["subject-prefix"],
    ...(healthChecks && { healthChecks }),
    logger,
  });

  const signal = await new Promise<string>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
    void service.closed.then(() => resolve("nats-closed"));
  });
  logger.info({ signal }, "stopping");
  await service.stop();
  return signal === "nats-closed" ? 1 : 0;
}

// docs/reference/environment.md: every environment variable stagewatch reads. The code reads them
// where each is used (bus/connectionOptions.ts, tracing/traceSettings.ts, the commands), with no
// table of its own to generate from, so the descriptions are written here and the list is held to
// the code: the names src/ reads are collected (by scanning its source, and by running the two
// parsers whose names are computed with an environment that records what they ask), and the page
// is not generated while a name read there is not described here, or one described is not read.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { natsConfigFromEnv } from "../../src/bus/connectionOptions.ts";
import { defaultSubjectPrefix, subjectPrefixVariable } from "../../src/bus/subjects.ts";
import { signingKeyFileVariable } from "../../src/cli/inputs/signingKeyFile.ts";
import { tenantsFileVariable } from "../../src/cli/inputs/tenantsFileReading.ts";
import { verifyKeyVariable } from "../../src/signing/keys.ts";
import { traceExportFromEnv } from "../../src/tracing/traceSettings.ts";
import { code, generatedNotice, table } from "./markdown.ts";

interface Variable {
  readonly name: string;
  /** The commands (or library) that read it. */
  readonly readBy: string;
  readonly default: string;
  readonly meaning: string;
}

const natsCommands = "serve, observe, list, get, cancel";
const natsDefault = natsConfigFromEnv({});
if (!natsDefault.ok) throw new Error("natsConfigFromEnv refuses an empty environment");

const natsSecret = (name: string, what: string): Variable[] => [
  { name, readBy: natsCommands, default: "none", meaning: what },
  { name: `${name}_FILE`, readBy: natsCommands, default: "none", meaning: `${code(name)} read from this file instead (a mounted Secret; one trailing line end dropped); not both` },
];

/** What src/ reads, in the order the page lists it; held to the code by `variablesReadBySource`. */
const readByStagewatch: readonly Variable[] = [
  {
    name: "NATS_URL",
    readBy: `${natsCommands}; demo with --kubeconfig`,
    default: code(natsDefault.value.servers.join(",")),
    meaning: "NATS server(s), comma-separated. For observe, this or any NATS credential means service mode (--nats-url wins)",
  },
  { name: "NATS_CREDS_FILE", readBy: natsCommands, default: "none", meaning: "NATS credentials file (JWT and nkey seed), read again at every reconnect" },
  ...natsSecret("NATS_TOKEN", "NATS token"),
  ...natsSecret("NATS_USER", "NATS user, with NATS_PASSWORD"),
  ...natsSecret("NATS_PASSWORD", "NATS password"),
  { name: "NATS_TLS_CA_FILE", readBy: natsCommands, default: "none", meaning: "the CA certificate that signed the NATS server's certificate" },
  { name: "NATS_TLS_CERT_FILE", readBy: natsCommands, default: "none", meaning: "client certificate for mutual TLS, with NATS_TLS_KEY_FILE" },
  { name: "NATS_TLS_KEY_FILE", readBy: natsCommands, default: "none", meaning: "client certificate's key for mutual TLS" },
  {
    name: subjectPrefixVariable,
    readBy: `${natsCommands}; the TypeScript client`,
    default: code(defaultSubjectPrefix),
    meaning: "NATS subject prefix, one per cluster on a shared NATS (--subject-prefix wins)",
  },
  {
    name: verifyKeyVariable,
    readBy: "serve, observe, get, cancel, verify; the TypeScript client",
    default: "none",
    meaning:
      "the service's public keys (N..., comma or space separated): clients believe only what one of them signed (--verify-key wins); serve refuses to start unless its signing key is among them, and keeps trusting the others (a rotation's previous key)",
  },
  {
    name: signingKeyFileVariable,
    readBy: "serve",
    default: "none: nothing is signed",
    meaning: "the nkeys seed serve signs every verdict and event with (`stagewatch keys create`; --signing-key wins)",
  },
  {
    name: tenantsFileVariable,
    readBy: "serve",
    default: "none: one caller, everything allowed",
    meaning: "the tenants file: requests are taken only from its NATS accounts, each scoped to its own (--tenants wins)",
  },
  {
    name: "STAGEWATCH_CLUSTER_NAME",
    readBy: "serve",
    default: "none: attestations name no cluster",
    meaning: "the cluster's name in each decided verdict's in-toto attestation (--cluster-name wins)",
  },
  {
    name: "STAGEWATCH_REPLICA_ID",
    readBy: "serve",
    default: "host name and a random suffix",
    meaning: "this replica's id in leases, heartbeat and logs (the chart gives the pod name); unique per running process (--replica-id wins)",
  },
  {
    name: "KUBECONFIG",
    readBy: "serve, observe",
    default: "~/.kube/config, else the pod's service account",
    meaning: "kubeconfig file(s), separated as in PATH: serve's cluster; observe's in local mode, and where --namespace's default is read in both modes (--kubeconfig wins)",
  },
  { name: "HOME", readBy: "observe", default: "the user's", meaning: "where ~/.kube/config is looked for" },
  {
    name: "KUBERNETES_SERVICE_HOST",
    readBy: "serve, observe",
    default: "set by Kubernetes in every pod",
    meaning: "in a pod with no kubeconfig: the pod's service account is used, and its namespace is --namespace's default",
  },
  {
    name: "TRACEPARENT",
    readBy: "observe",
    default: "none",
    meaning: "the W3C trace context of the CI pipeline: the service exports the observation as spans under it (--traceparent wins)",
  },
  { name: "TRACESTATE", readBy: "observe", default: "none", meaning: "its trace state, with TRACEPARENT (not with --traceparent)" },
  { name: "NO_COLOR", readBy: "observe", default: "unset", meaning: "set and not empty: no colours in the progress view" },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    readBy: "serve",
    default: "unset: no traces",
    meaning: "export each decided observation as a trace, OTLP/HTTP protobuf, to this endpoint (`/v1/traces` appended)",
  },
  { name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", readBy: "serve", default: "unset", meaning: "the traces URL as it is; wins over OTEL_EXPORTER_OTLP_ENDPOINT" },
  { name: "OTEL_SDK_DISABLED", readBy: "serve", default: "unset", meaning: "`true`: no traces" },
  { name: "OTEL_TRACES_EXPORTER", readBy: "serve", default: code("otlp"), meaning: "`none`: no traces; other than `otlp` or `none` is refused (exit 2)" },
  { name: "OTEL_EXPORTER_OTLP_PROTOCOL", readBy: "serve", default: code("http/protobuf"), meaning: "other than `http/protobuf` is refused (exit 2)" },
  { name: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", readBy: "serve", default: "unset", meaning: "the same, for traces; wins over OTEL_EXPORTER_OTLP_PROTOCOL" },
  { name: "OTEL_EXPORTER_OTLP_TIMEOUT", readBy: "serve", default: "the exporter's", meaning: "milliseconds an export may take" },
  { name: "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", readBy: "serve", default: "unset", meaning: "the same, for traces; wins over OTEL_EXPORTER_OTLP_TIMEOUT" },
  { name: "OTEL_BSP_SCHEDULE_DELAY", readBy: "serve", default: "the SDK's", meaning: "milliseconds between two exports of the batch span processor" },
  { name: "OTEL_BSP_MAX_QUEUE_SIZE", readBy: "serve", default: "the SDK's", meaning: "spans queued for export; past it, spans are dropped" },
  { name: "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", readBy: "serve", default: "the SDK's", meaning: "spans in one export" },
  { name: "OTEL_BSP_EXPORT_TIMEOUT", readBy: "serve", default: "the SDK's", meaning: "milliseconds the batch processor gives one export" },
];

/** Read by the libraries and runtime stagewatch runs on, not by src/: not checked against the code. */
const readByLibraries: readonly Variable[] = [
  { name: "OTEL_SERVICE_NAME", readBy: "serve (OpenTelemetry's resource detector)", default: code("stagewatch"), meaning: "the spans' `service.name`" },
  {
    name: "OTEL_RESOURCE_ATTRIBUTES",
    readBy: "serve (OpenTelemetry's resource detector)",
    default: "none",
    meaning: "more attributes of the spans' resource (the chart gives the pod's name and namespace); they win over stagewatch's",
  },
  {
    name: "OTEL_EXPORTER_OTLP_HEADERS",
    readBy: "serve (the OTLP exporter)",
    default: "none",
    meaning: "headers of every export (`authorization=Bearer ...`); the exporter's other OTEL_EXPORTER_OTLP_* variables (certificates, compression) as it documents them",
  },
  { name: "NODE_COMPILE_CACHE", readBy: "every command (Node.js)", default: "Node's own directory", meaning: "where compiled modules are kept between runs" },
  { name: "NODE_DISABLE_COMPILE_CACHE", readBy: "every command (Node.js)", default: "unset", meaning: "`1`: no compile cache" },
];

const sourceRoot = fileURLToPath(new URL("../../src/", import.meta.url));

/** The two parsers that compute names (`${name}_FILE`, `positiveInt(env, name)`), and an environment that makes each read every name it knows. */
const recordedParsers: readonly { readonly file: string; readonly run: (env: NodeJS.ProcessEnv) => unknown }[] = [
  { file: "bus/connectionOptions.ts", run: (env) => natsConfigFromEnv(env) },
  { file: "tracing/traceSettings.ts", run: (env) => traceExportFromEnv({ ...env, OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }) },
];

function recordedReads(run: (env: NodeJS.ProcessEnv) => unknown): string[] {
  const read = new Set<string>();
  const recording = new Proxy<NodeJS.ProcessEnv>(
    {},
    {
      get: (_, name) => {
        if (typeof name === "string") read.add(name);
        return undefined;
      },
    },
  );
  run(recording);
  return [...read];
}

/**
 * Every name src/ reads from an environment: `env.NAME`, `env["NAME"]`, the constants named
 * `...Variable(s)`, `helper(env, "NAME")`, and what the recorded parsers ask. A read by a computed
 * name in a file where none of these names a variable throws: this scan could not name it.
 */
export function variablesReadBySource(root = sourceRoot): Set<string> {
  const names = new Set<string>();
  for (const parser of recordedParsers) for (const name of recordedReads(parser.run)) names.add(name);
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
    (file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.split("/").includes("testing"),
  );
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const named = [
      ...[...text.matchAll(/\benv(?:\.|\[\s*["'])([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]!),
      ...[...text.matchAll(/\b[a-z]\w*Variables?\s*=\s*(\[[^\]]*\]|"[^"]*")/g)].flatMap((match) => [...match[1]!.matchAll(/"([A-Z][A-Z0-9_]*)"/g)].map((literal) => literal[1]!)),
      ...[...text.matchAll(/\(env, "([A-Z][A-Z0-9_]*)"\)/g)].map((match) => match[1]!),
    ];
    for (const name of named) names.add(name);
    const followed = named.length > 0 || recordedParsers.some((parser) => parser.file === file);
    for (const [read, key] of text.matchAll(/\benv\[(?!\s*["'])([^\]]*)\]/g)) {
      if (!/^\w+Variables?$/.test(key!.trim()) && !followed) throw new Error(`src/${file} reads ${read}: name the variable in a constant (xVariable) so the reference can find it`);
    }
  }
  return names;
}

export function environmentPage(): string {
  const read = variablesReadBySource();
  const described = new Set(readByStagewatch.map((variable) => variable.name));
  const undescribed = [...read].filter((name) => !described.has(name)).sort();
  const unread = [...described].filter((name) => !read.has(name)).sort();
  if (undescribed.length > 0) throw new Error(`src/ reads ${undescribed.join(", ")}: describe each in scripts/docs/environment.ts`);
  if (unread.length > 0) throw new Error(`scripts/docs/environment.ts describes ${unread.join(", ")}, which src/ does not read: remove it, or move it to readByLibraries`);

  const rows = (variables: readonly Variable[]) => variables.map((variable) => [code(variable.name), variable.readBy, variable.default, variable.meaning]);
  return [
    generatedNotice("scripts/docs/environment.ts, its list of variables checked against what src/ reads"),
    "# Environment variables",
    "",
    "What stagewatch's commands and service read from their environment. A flag, where one is named, wins over its",
    "variable ([command line](cli/README.md)).",
    "",
    "## Read by stagewatch",
    "",
    table(["Variable", "Read by", "Default", "Meaning"], rows(readByStagewatch)),
    "",
    "## Read by the libraries stagewatch runs on",
    "",
    table(["Variable", "Read by", "Default", "Meaning"], rows(readByLibraries)),
    "",
  ].join("\n");
}

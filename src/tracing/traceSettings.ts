// Whether and where traces go, from the standard OpenTelemetry environment variables
// (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/): tracing is
// on only when an OTLP endpoint is set, and OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none
// turn it off again. Headers, certificates and compression (OTEL_EXPORTER_OTLP_*) are read by
// the OTLP exporter itself. The batch processor's OTEL_BSP_* are read here: this SDK version
// leaves them to the caller.
export interface TraceExportSettings {
  /** The OTLP/HTTP traces URL (`.../v1/traces`). */
  readonly url: string;
  readonly timeoutMs?: number | undefined;
  readonly batch: {
    readonly scheduledDelayMillis?: number;
    readonly maxQueueSize?: number;
    readonly maxExportBatchSize?: number;
    readonly exportTimeoutMillis?: number;
  };
}

export type TraceExportChoice = { readonly enabled: true; readonly settings: TraceExportSettings } | { readonly enabled: false; readonly because: string };

export class TraceSettingsError extends Error {
  override readonly name = "TraceSettingsError";
}

function positiveInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new TraceSettingsError(`${name} must be a positive whole number, not ${JSON.stringify(raw)}`);
  return value;
}

function validUrl(name: string, raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
    return url.toString();
  } catch {
    throw new TraceSettingsError(`${name} must be an http(s) URL, not ${JSON.stringify(raw)}`);
  }
}

export function traceExportFromEnv(env: NodeJS.ProcessEnv): TraceExportChoice {
  if ((env.OTEL_SDK_DISABLED ?? "").toLowerCase() === "true") return { enabled: false, because: "OTEL_SDK_DISABLED=true" };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((name) => name.trim());
  if (exporters.includes("none")) return { enabled: false, because: "OTEL_TRACES_EXPORTER=none" };
  if (!exporters.includes("otlp")) throw new TraceSettingsError(`OTEL_TRACES_EXPORTER ${JSON.stringify(env.OTEL_TRACES_EXPORTER)} is not supported: use otlp or none`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol !== "" && protocol !== "http/protobuf") {
    throw new TraceSettingsError(`OTLP protocol ${JSON.stringify(protocol)} is not supported: stagewatch exports http/protobuf`);
  }
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  let url: string;
  if (specific !== undefined && specific !== "") url = validUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", specific);
  else if (general !== undefined && general !== "") url = new URL("v1/traces", validUrl("OTEL_EXPORTER_OTLP_ENDPOINT", general.endsWith("/") ? general : `${general}/`)).toString();
  else return { enabled: false, because: "no OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" };
  const batch = {
    ...optional("scheduledDelayMillis", positiveInt(env, "OTEL_BSP_SCHEDULE_DELAY")),
    ...optional("maxQueueSize", positiveInt(env, "OTEL_BSP_MAX_QUEUE_SIZE")),
    ...optional("maxExportBatchSize", positiveInt(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE")),
    ...optional("exportTimeoutMillis", positiveInt(env, "OTEL_BSP_EXPORT_TIMEOUT")),
  };
  return { enabled: true, settings: { url, timeoutMs: positiveInt(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? positiveInt(env, "OTEL_EXPORTER_OTLP_TIMEOUT"), batch } };
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}

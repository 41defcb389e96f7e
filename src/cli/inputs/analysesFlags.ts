// `--analyses FILE` and `--prometheus-*` (serve, and observe in local mode): the operator's metric
// checks of the `verified` stage and the Prometheus they query, read before anything connects, so
// a bad file or a missing certificate is bad input (exit 2) naming the flag and the field.
// Options as Prometheus users know them from a scrape config's `authorization.credentials_file`
// and `tls_config` (ca_file, cert_file, key_file): files, so a Secret mounted in the pod serves.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { PrometheusOptions } from "../../prometheus/index.js";
// The rooms themselves, not verdicts' index: observe's start-up graph stays free of the CEL engine.
import { AnalysesFile, type AnalysisTemplate } from "../../verdicts/analysis/analysisTemplates.js";
import { describeIssues, parseWith } from "../../verdicts/contract/validation.js";
import { UsageError } from "../io/usage.js";
import { durationFlagSeconds } from "./duration.js";

export const analysesOptions = {
  analyses: { type: "string" },
  "prometheus-url": { type: "string" },
  "prometheus-bearer-token-file": { type: "string" },
  "prometheus-ca-file": { type: "string" },
  "prometheus-cert-file": { type: "string" },
  "prometheus-key-file": { type: "string" },
  "prometheus-timeout": { type: "string" },
} as const;

export const analysesHelp = `  --analyses FILE         the verified stage's metric checks (YAML or JSON: analyses: [{name,
                          args?, query, successCondition, intervalSeconds, count, failureLimit?,
                          inconclusiveLimit?}], as an AnalysisTemplate's metrics); requests name
                          them in verify.analyses with their arguments, never PromQL; needs
                          --prometheus-url (docs/operator/analyses.md)
  --prometheus-url URL    the Prometheus the analyses query (its base URL; a path prefix is kept)
  --prometheus-bearer-token-file FILE
                          send 'Authorization: Bearer' with the token in FILE
  --prometheus-ca-file FILE, --prometheus-cert-file FILE, --prometheus-key-file FILE
                          TLS: the CA bundle to trust, a client certificate and its key (PEM)
  --prometheus-timeout D  how long one query may take; past it the measurement is inconclusive
                          (default 10s)`;

export interface AnalysesFlags {
  readonly analyses?: string | undefined;
  readonly "prometheus-url"?: string | undefined;
  readonly "prometheus-bearer-token-file"?: string | undefined;
  readonly "prometheus-ca-file"?: string | undefined;
  readonly "prometheus-cert-file"?: string | undefined;
  readonly "prometheus-key-file"?: string | undefined;
  readonly "prometheus-timeout"?: string | undefined;
}

/** The checks and where they are measured: the engine's `analyses` once `prometheus/metricChecks` joins them. */
export interface AnalysesSetting {
  readonly templates: ReadonlyMap<string, AnalysisTemplate>;
  readonly prometheus: PrometheusOptions;
}

/** Undefined when no flag of these is given; a usage error when one needs another. */
export function readAnalysesFlags(values: AnalysesFlags): AnalysesSetting | undefined {
  const url = values["prometheus-url"];
  const prometheusFlags = (Object.keys(analysesOptions) as (keyof AnalysesFlags)[]).filter((flag) => flag !== "analyses" && values[flag] !== undefined);
  if (values.analyses === undefined) {
    if (prometheusFlags.length > 0) throw new UsageError(`--${prometheusFlags[0]}: only with --analyses (the checks it would measure)`);
    return undefined;
  }
  if (url === undefined) throw new UsageError("--analyses: needs --prometheus-url (where the checks are measured)");
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    throw new UsageError(`--prometheus-url: '${url}' is not a URL`);
  }
  if (parsedUrl.protocol !== "http:" && parsedUrl.protocol !== "https:") throw new UsageError(`--prometheus-url: '${url}' must be http:// or https://`);
  if (parsedUrl.username !== "" || parsedUrl.password !== "") throw new UsageError("--prometheus-url: no credentials in the URL (they would be logged); use --prometheus-bearer-token-file");
  const file = (flag: keyof AnalysesFlags) => {
    const path = values[flag];
    if (path === undefined) return undefined;
    try {
      return readFileSync(path, "utf8");
    } catch (error) {
      throw new UsageError(`--${flag}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
    }
  };
  if ((values["prometheus-cert-file"] === undefined) !== (values["prometheus-key-file"] === undefined)) {
    throw new UsageError(`--${values["prometheus-cert-file"] === undefined ? "prometheus-key-file" : "prometheus-cert-file"}: give the client certificate and its key together`);
  }
  const token = file("prometheus-bearer-token-file")?.trim();
  const ca = file("prometheus-ca-file");
  const cert = file("prometheus-cert-file");
  const key = file("prometheus-key-file");
  const timeout = values["prometheus-timeout"];
  const timeoutSeconds = timeout === undefined ? undefined : durationFlagSeconds("--prometheus-timeout", timeout);
  return {
    templates: readAnalysesFile(values.analyses),
    prometheus: {
      url,
      ...(token !== undefined && { bearerToken: token }),
      ...(ca !== undefined && { ca }),
      ...(cert !== undefined && { cert }),
      ...(key !== undefined && { key }),
      ...(timeoutSeconds !== undefined && { timeoutMs: timeoutSeconds * 1000 }),
    },
  };
}

function readAnalysesFile(path: string): ReadonlyMap<string, AnalysisTemplate> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`--analyses: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new UsageError(`--analyses: ${path} is not YAML or JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = parseWith(AnalysesFile, document ?? {});
  if (!parsed.ok) throw new UsageError(`--analyses: ${path}: ${describeIssues(parsed.issues)}`);
  return new Map(parsed.value.analyses.map((template) => [template.name, template]));
}

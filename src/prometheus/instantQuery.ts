// One instant query against Prometheus's HTTP API (`POST /api/v1/query`, form-encoded: a rendered
// template can be long), as the `verified` stage's metric checks measure. The answer is one
// number or the reason there is none: an empty vector or NaN is inconclusive (the check's
// inconclusiveLimit decides), more than one series is inconclusive too (a template should
// aggregate; which series to take would be a guess). An HTTP or API error throws QueryError,
// which metricChecks turns into an inconclusive measurement with its words.
//
// Options as Prometheus users expect them from a scraper or Grafana's data source: a bearer token
// (Prometheus behind an authenticating proxy, Thanos, Mimir), a CA bundle for a private TLS
// chain, a client certificate, and a timeout.
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { z } from "zod";
import type { MeasuredValue } from "../verdicts/index.js";

export interface PrometheusOptions {
  /** The server's base URL, e.g. `https://prometheus.monitoring:9090` (a path prefix is kept). */
  readonly url: string;
  readonly bearerToken?: string | undefined;
  /** PEM: the CA bundle to trust, a client certificate and its key (mutual TLS). */
  readonly ca?: string | undefined;
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
  readonly timeoutMs?: number | undefined;
}

export class QueryError extends Error {
  override name = "QueryError";
}

const Sample = z.tuple([z.number(), z.string()]);
const QueryReply = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("success"),
    data: z.discriminatedUnion("resultType", [
      z.object({ resultType: z.literal("vector"), result: z.array(z.object({ metric: z.record(z.string(), z.string()), value: Sample })) }),
      z.object({ resultType: z.literal("scalar"), result: Sample }),
      z.object({ resultType: z.literal("matrix"), result: z.array(z.unknown()) }),
      z.object({ resultType: z.literal("string"), result: Sample }),
    ]),
  }),
  z.object({ status: z.literal("error"), errorType: z.string().optional(), error: z.string().optional() }),
]);

/** What a reply says: a number, or why it is inconclusive. Throws QueryError for an error reply or an unusable result. */
export function measuredValueOf(body: unknown): MeasuredValue {
  const reply = QueryReply.safeParse(body);
  if (!reply.success) throw new QueryError(`Prometheus answered something other than a query result: ${reply.error.issues[0]?.message ?? ""}`);
  if (reply.data.status === "error") throw new QueryError(`Prometheus refused the query: ${reply.data.errorType ?? "error"}: ${reply.data.error ?? ""}`);
  const { data } = reply.data;
  switch (data.resultType) {
    case "scalar":
      return sampleValue(data.result);
    case "vector":
      if (data.result.length === 0) return { inconclusive: "the query returned no series" };
      if (data.result.length > 1) return { inconclusive: `the query returned ${data.result.length} series, not one (aggregate it: sum, max)` };
      return sampleValue(data.result[0]!.value);
    case "matrix":
    case "string":
      throw new QueryError(`the query returned a ${data.resultType}, not a number`);
  }
}

function sampleValue([, text]: [number, string]): MeasuredValue {
  const value = Number(text);
  // Prometheus writes NaN and ±Inf as text; NaN (0/0: no requests at all) says nothing.
  return Number.isNaN(value) ? { inconclusive: `the query returned ${text}` } : { value };
}

export async function instantQuery(options: PrometheusOptions, query: string): Promise<MeasuredValue> {
  const base = new URL(options.url);
  const url = new URL(`${base.pathname.replace(/\/$/, "")}/api/v1/query`, base);
  const body = new URLSearchParams({ query }).toString();
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const text = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = send(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
          ...(options.bearerToken !== undefined && { authorization: `Bearer ${options.bearerToken}` }),
        },
        ...(options.ca !== undefined && { ca: options.ca }),
        ...(options.cert !== undefined && { cert: options.cert }),
        ...(options.key !== undefined && { key: options.key }),
        timeout: options.timeoutMs ?? 10_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new QueryError(`Prometheus did not answer within ${options.timeoutMs ?? 10_000} ms`)));
    req.on("error", (error) => reject(error instanceof QueryError ? error : new QueryError(`cannot reach Prometheus at ${base.origin}: ${error.message}`, { cause: error })));
    req.end(body);
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.text);
  } catch (error) {
    throw new QueryError(`Prometheus answered ${text.status} with a body that is not JSON`, { cause: error });
  }
  // 400 and 422 carry an error reply; measuredValueOf reads it.
  if (text.status >= 500) throw new QueryError(`Prometheus answered ${text.status}`);
  return measuredValueOf(parsed);
}

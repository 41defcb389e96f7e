// instantQuery against a real HTTP server on loopback answering as Prometheus's /api/v1/query
// does (bodies as Prometheus 2.x and 3.x write them), and measuredValueOf on each result type.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueryError, instantQuery, measuredValueOf } from "./instantQuery.js";

const vector = (...values: string[]) => ({
  status: "success",
  data: { resultType: "vector", result: values.map((value, i) => ({ metric: { deployment: "api", pod: `api-7f9c6d8b5-${i}` }, value: [1764820800.123, value] })) },
});

describe("measuredValueOf", () => {
  it.each([
    ["one series", vector("0.042"), { value: 0.042 }],
    ["a scalar", { status: "success", data: { resultType: "scalar", result: [1764820800.123, "0.5"] } }, { value: 0.5 }],
    ["no series", vector(), { inconclusive: "the query returned no series" }],
    ["NaN (0/0: no requests)", vector("NaN"), { inconclusive: "the query returned NaN" }],
    ["two series", vector("0.1", "0.2"), { inconclusive: "the query returned 2 series, not one (aggregate it: sum, max)" }],
  ])("%s", (_what, body, expected) => {
    expect(measuredValueOf(body)).toEqual(expected);
  });

  it("an error reply throws QueryError with Prometheus's own words", () => {
    expect(() => measuredValueOf({ status: "error", errorType: "bad_data", error: 'invalid parameter "query": 1:5: parse error: unexpected "}"' })).toThrow(
      new QueryError('Prometheus refused the query: bad_data: invalid parameter "query": 1:5: parse error: unexpected "}"'),
    );
  });
});

describe("instantQuery", () => {
  const seen: { url: string; authorization: string | undefined; query: string | null }[] = [];
  let answer: (response: ServerResponse) => void = (response) => response.end(JSON.stringify(vector("0.003")));
  const server = createServer((request: IncomingMessage, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      seen.push({ url: request.url ?? "", authorization: request.headers.authorization, query: new URLSearchParams(body).get("query") });
      answer(response);
    });
  });
  let url: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prom`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("posts the query form-encoded under the URL's path, with the bearer token", async () => {
    const query = 'sum(rate(http_requests_total{namespace="payments", code=~"5.."}[1m]))';
    expect(await instantQuery({ url, bearerToken: "s3cret" }, query)).toEqual({ value: 0.003 });
    expect(seen.at(-1)).toEqual({ url: "/prom/api/v1/query", authorization: "Bearer s3cret", query });
  });

  it("a 422 with an error body is Prometheus's refusal; a 503 and an unreachable server are errors", async () => {
    answer = (response) => {
      response.statusCode = 422;
      response.end(JSON.stringify({ status: "error", errorType: "execution", error: "query timed out in expression evaluation" }));
    };
    await expect(instantQuery({ url }, "up")).rejects.toThrow("Prometheus refused the query: execution: query timed out in expression evaluation");
    answer = (response) => {
      response.statusCode = 503;
      response.end("{}");
    };
    await expect(instantQuery({ url }, "up")).rejects.toThrow("Prometheus answered 503");
    await expect(instantQuery({ url: "http://127.0.0.1:1" }, "up")).rejects.toBeInstanceOf(QueryError);
  });
});

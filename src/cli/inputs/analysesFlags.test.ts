// The analyses flags as serve and local mode read them: what each refuses at start (exit 2 through
// UsageError, naming the flag), and the options Prometheus is then queried with.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../io/usage.js";
import { readAnalysesFlags } from "./analysesFlags.js";

const dir = mkdtempSync(join(tmpdir(), "analyses-"));
const write = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const analyses = write(
  "analyses.yaml",
  `analyses:
  - name: error-rate
    args: [{name: route, default: /}]
    query: 'sum(rate(http_requests_total{namespace="{{namespace}}", route="{{args.route}}", code=~"5.."}[1m])) / sum(rate(http_requests_total{namespace="{{namespace}}", route="{{args.route}}"}[1m]))'
    successCondition: result < 0.01
    intervalSeconds: 30
    count: 5
`,
);
const outside = write("outside.yaml", `analyses: [{name: wide, query: 'sum(up{job="{{args.job}}"})', args: [{name: job}], successCondition: result > 0, intervalSeconds: 10, count: 3}]\n`);
const token = write("token", "eyJhbGciOiJSUzI1NiJ9.c2VydmljZWFjY291bnQ.sig\n");
const ca = write("ca.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");

describe("readAnalysesFlags", () => {
  it("none given: no checks", () => {
    expect(readAnalysesFlags({})).toBeUndefined();
  });

  it("reads the templates and the Prometheus options, the token trimmed", () => {
    const read = readAnalysesFlags({ analyses, "prometheus-url": "https://prometheus.monitoring:9090/prom", "prometheus-bearer-token-file": token, "prometheus-ca-file": ca, "prometheus-timeout": "5s" });
    expect([...read!.templates.keys()]).toEqual(["error-rate"]);
    expect(read!.prometheus).toEqual({
      url: "https://prometheus.monitoring:9090/prom",
      bearerToken: "eyJhbGciOiJSUzI1NiJ9.c2VydmljZWFjY291bnQ.sig",
      ca: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
      timeoutMs: 5000,
    });
  });

  it.each([
    ["--analyses without --prometheus-url", { analyses }, "--analyses: needs --prometheus-url"],
    ["--prometheus-url without --analyses", { "prometheus-url": "http://127.0.0.1:9090" }, "--prometheus-url: only with --analyses"],
    ["a URL with credentials", { analyses, "prometheus-url": "https://ci:s3cret@prometheus:9090" }, "--prometheus-url: no credentials in the URL"],
    ["a URL that is not http", { analyses, "prometheus-url": "ftp://prometheus" }, "must be http:// or https://"],
    ["a client certificate without its key", { analyses, "prometheus-url": "https://prometheus:9090", "prometheus-cert-file": ca }, "--prometheus-cert-file: give the client certificate and its key together"],
    ["a token file that is not there", { analyses, "prometheus-url": "http://prometheus:9090", "prometheus-bearer-token-file": join(dir, "missing") }, "--prometheus-bearer-token-file: cannot read"],
    ["a query that does not select the request's namespace", { analyses: outside, "prometheus-url": "http://prometheus:9090" }, "analyses[0].query: must select the request's namespace"],
  ])("refuses %s, naming the flag", (_what, flags, message) => {
    expect(() => readAnalysesFlags(flags)).toThrow(UsageError);
    expect(() => readAnalysesFlags(flags)).toThrow(message);
  });
});

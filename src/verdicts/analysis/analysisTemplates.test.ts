// The analyses file as an operator writes it, and what a request's arguments can do to a query:
// never leave the string literal they are written into, never reach another namespace.
import { describe, expect, it } from "vitest";
import { parseWith } from "../contract/validation.js";
import { AnalysesFile, AnalysisTemplate, renderQuery, resolveArgs } from "./analysisTemplates.js";
import { addMeasurement, analysisStatus, noMeasurements, type AnalysisTally } from "./measurements.js";

const errorRate = {
  name: "error-rate",
  args: [{ name: "route", default: "/" }],
  query:
    'sum(rate(http_requests_total{namespace="{{namespace}}", deployment="{{deployment}}", pod_template_hash="{{revision}}", route="{{args.route}}", code=~"5.."}[1m]))' +
    ' / sum(rate(http_requests_total{namespace="{{namespace}}", deployment="{{deployment}}", pod_template_hash="{{revision}}", route="{{args.route}}"}[1m]))',
  successCondition: "result < 0.01",
  intervalSeconds: 30,
  count: 5,
  failureLimit: 2,
};

function template(overrides: Record<string, unknown> = {}): AnalysisTemplate {
  const parsed = parseWith(AnalysisTemplate, { ...errorRate, ...overrides });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
}

const bindings = { namespace: "payments", deployment: "api", revision: "7f9c6d8b5", args: { route: "/checkout" } };

describe("AnalysesFile", () => {
  it("takes templates like an AnalysisTemplate's metrics, with Argo's default limits", () => {
    const parsed = parseWith(AnalysesFile, { analyses: [{ ...errorRate, failureLimit: undefined }] });
    expect(parsed.ok && parsed.value.analyses[0]).toMatchObject({ name: "error-rate", failureLimit: 0, inconclusiveLimit: 0 });
  });

  it.each([
    ["a query that does not select the request's namespace", { query: 'sum(rate(http_requests_total{deployment="{{deployment}}"}[1m]))' }, "analyses[0].query", "must select the request's namespace"],
    ["a placeholder outside a string literal", { query: 'sum(rate(http_requests_total{namespace="{{namespace}}"}[{{args.route}}]))' }, "analyses[0].query", "{{args.route}} must sit inside a double-quoted string"],
    ["a placeholder in a raw string", { query: "sum(http_requests_total{namespace=`{{namespace}}`})" }, "analyses[0].query", "{{namespace}} must sit inside a double-quoted string"],
    ["an argument it does not declare", { query: 'sum(up{namespace="{{namespace}}", job="{{args.job}}"})' }, "analyses[0].query", "{{args.job}} is neither"],
    ["a condition that is not a comparison", { successCondition: "result[0] < 0.01 || true" }, "analyses[0].successCondition", "must be 'result <op> <number>'"],
  ])("refuses %s, naming the field", (_what, overrides, path, message) => {
    const parsed = parseWith(AnalysesFile, { analyses: [{ ...errorRate, ...overrides }] });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.issues).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it("refuses two templates of one name", () => {
    const parsed = parseWith(AnalysesFile, { analyses: [errorRate, errorRate] });
    expect(!parsed.ok && parsed.issues).toEqual([{ path: "analyses[1].name", message: "'error-rate' is already analyses[0]'s name" }]);
  });
});

describe("renderQuery and resolveArgs", () => {
  it("fills in what the service knows and the request's declared arguments", () => {
    const query = renderQuery(template(), bindings);
    expect(query).toContain('namespace="payments", deployment="api", pod_template_hash="7f9c6d8b5", route="/checkout"');
    expect(query).not.toContain("{{");
  });

  it("an argument trying to close its string and widen the query stays a value inside the string", () => {
    const widening = '/"} or sum(rate(http_requests_total{namespace="other-tenant';
    const resolved = resolveArgs(template(), { route: widening });
    expect(resolved.ok).toBe(true);
    const query = renderQuery(template(), { ...bindings, args: resolved.ok ? resolved.args : {} });
    expect(query).toContain('route="/\\"} or sum(rate(http_requests_total{namespace=\\"other-tenant"');
    // Outside string literals the query is the template's: the same selectors, the same operators.
    const outsideStrings = (text: string) => text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    expect(outsideStrings(query)).toBe(outsideStrings(renderQuery(template(), bindings)));
    expect(query.match(/namespace="([^"]*)"/g)).toEqual(['namespace="payments"', 'namespace="payments"']);
  });

  it("a backslash cannot undo the escaping", () => {
    const query = renderQuery(template(), { ...bindings, args: { route: '\\"} or vector(1) #' } });
    expect(query).toContain('route="\\\\\\"} or vector(1) #"');
  });

  it.each([
    ["an argument the template does not declare", { route: "/", tenant: "other" }, [{ arg: "tenant", message: "analysis error-rate declares no argument 'tenant'" }]],
    ["a control character", { route: "/\n} or vector(1)" }, [{ arg: "route", message: "must not hold control characters" }]],
  ])("refuses %s, naming the argument", (_what, given, problems) => {
    expect(resolveArgs(template(), given)).toEqual({ ok: false, problems });
  });

  it("a declared argument without a default is required", () => {
    expect(resolveArgs(template({ args: [{ name: "route" }] }), {})).toEqual({ ok: false, problems: [{ arg: "route", message: "required by analysis error-rate" }] });
  });
});

describe("measurements", () => {
  const run = (values: (number | string)[]): AnalysisTally =>
    values.reduce<AnalysisTally>((tally, value) => addMeasurement(template(), tally, typeof value === "number" ? { value } : { inconclusive: value }), noMeasurements);

  it.each([
    ["five under the threshold pass", [0.001, 0.002, 0, 0.009, 0.003], { status: "passed" }],
    ["two failures are within failureLimit 2", [0.02, 0.001, 0.03, 0.001, 0.001], { status: "passed" }],
    ["three measured are still running", [0.001, 0.002, 0.003], { status: "running" }],
    [
      "the third failure fails at once, with the value that failed",
      [0.02, 0.001, 0.03, 0.042],
      { status: "failed", reason: "AnalysisFailed", message: "analysis error-rate failed 3 of 5 measurements (0.042 >= 0.01)" },
    ],
    [
      "an empty result is inconclusive, past inconclusiveLimit 0 a failure",
      ["the query returned no series"],
      { status: "failed", reason: "AnalysisInconclusive", message: "analysis error-rate was inconclusive 1 of 5 measurements (the query returned no series)" },
    ],
  ])("%s", (_what, values, status) => {
    expect(analysisStatus(template(), run(values))).toEqual(status);
  });
});

// The `verified` stage's metric checks through the engine, on virtual time: the operator's template
// rendered with the request's namespace, deployment and new revision, measured on its interval from
// the window's opening, each answer a progress event and a step of the reducer; no measurement
// after the observation ends; an adopting replica taking the measurements still to come.
import { describe, expect, it } from "vitest";
import { pod, running } from "../../test/fixtures/kube/pods.js";
import { deployment, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { AnalysisTemplate, parseWith, type MeasuredValue, type ObservationRequestInput } from "../verdicts/index.js";
import { defaultLeaseTiming } from "./leases/leasePolicy.js";
import type { MetricChecks } from "./ports.js";
import { engineHarness, observationRequest, type EngineHarness, putObjects as put } from "./testing/index.js";

const parsed = parseWith(AnalysisTemplate, {
  name: "error-rate",
  args: [{ name: "route", default: "/" }],
  query: 'max(http_requests_errors_ratio{namespace="{{namespace}}", deployment="{{deployment}}", pod_template_hash="{{revision}}", route="{{args.route}}"})',
  successCondition: "result < 0.01",
  intervalSeconds: 10,
  count: 3,
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
const errorRate = parsed.value;

/** Prometheus as the engine sees it: each query answered with the next scripted value, every query kept. */
function scriptedPrometheus(values: readonly number[]): MetricChecks & { queries: string[] } {
  const queries: string[] = [];
  return {
    templates: new Map([[errorRate.name, errorRate]]),
    queries,
    measure: (query): Promise<MeasuredValue> => {
      queries.push(query);
      const value = values[queries.length - 1];
      return Promise.resolve(value === undefined ? { inconclusive: "the query returned no series" } : { value });
    },
  };
}

const rolling = rollingOutDeployment({ replicas: 2, ready: 0 });
const rolledOut = deployment({ replicas: 2 });
const current = replicaSet(rolledOut, { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 2 });
const names = ["api-7f9c6d8b5-x2k8p", "api-7f9c6d8b5-q7w4d"] as const;

const verifiedRequest = (overrides: Partial<ObservationRequestInput> = {}) =>
  observationRequest({ require: "verified", verify: { windowSeconds: 60, analyses: [{ name: "error-rate", args: { route: "/checkout" } }] }, stallSeconds: 0, ...overrides });

/** `api` healthy 20 s in: the window opens at 10:00:20, measurements due at 20, 30 and 40 s. */
async function healthyAfterTwentySeconds(h: EngineHarness, overrides: Partial<ObservationRequestInput> = {}) {
  await put(h, rolling, current, ...names.map((name) => pod({ name, owner: current, containers: [running("api", { ready: false })] })));
  const id = await h.start(verifiedRequest(overrides));
  await h.advance(20_000);
  await put(h, rolledOut, ...names.map((name) => pod({ name, owner: current, containers: [running("api")] })));
  return id;
}

describe("analyses through the engine", () => {
  it("measures on the template's interval from healthy, the query selecting the request's namespace, deployment and revision; verified at the window's end", async () => {
    const prometheus = scriptedPrometheus([0.001, 0.002, 0]);
    const h = engineHarness({ analyses: prometheus });
    const id = await healthyAfterTwentySeconds(h);
    await h.advance(0);
    expect(prometheus.queries).toEqual([
      'max(http_requests_errors_ratio{namespace="payments", deployment="payments", pod_template_hash="7f9c6d8b5", route="/checkout"})',
    ]);
    await h.advance(19_999);
    expect(prometheus.queries).toHaveLength(2);
    await h.advance(1);
    expect(prometheus.queries).toHaveLength(3);

    const measured = h.events.of(id).filter((event) => event.type === "progress" && event.verification);
    expect(measured.map((event) => event.type === "progress" && event.verification?.analyses?.[0])).toEqual([
      { name: "error-rate", status: "running", taken: 1, count: 3, failed: 0, inconclusive: 0, last: 0.001 },
      { name: "error-rate", status: "running", taken: 2, count: 3, failed: 0, inconclusive: 0, last: 0.002 },
      { name: "error-rate", status: "passed", taken: 3, count: 3, failed: 0, inconclusive: 0, last: 0 },
    ]);
    await h.advance(40_000);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "succeeded",
      reached: "verified",
      decidedAt: "2026-11-29T10:01:20.000Z",
      verification: { analyses: [{ name: "error-rate", status: "passed", taken: 3 }] },
    });
    expect(prometheus.queries).toHaveLength(3);
  });

  it("fails verified at the measurement past the failure limit, naming the value", async () => {
    const prometheus = scriptedPrometheus([0.001, 0.042]);
    const h = engineHarness({ analyses: prometheus });
    const id = await healthyAfterTwentySeconds(h);
    await h.advance(10_000);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "failed",
      reached: "healthy",
      message: "deployment payments cannot reach verified: analysis error-rate failed 1 of 3 measurements (0.042 >= 0.01)",
      failure: { stage: "verified", reason: "AnalysisFailed", resource: { kind: "Deployment", name: "api" } },
      decidedAt: "2026-11-29T10:00:30.000Z",
    });
    await h.advance(120_000);
    expect(prometheus.queries).toHaveLength(2);
  });

  it("an argument cannot leave its string: a tenant's attempt to widen the query is sent escaped", async () => {
    const prometheus = scriptedPrometheus([0]);
    const h = engineHarness({ analyses: prometheus });
    await healthyAfterTwentySeconds(h, { verify: { windowSeconds: 60, analyses: [{ name: "error-rate", args: { route: '"} or up{namespace=~".+' } }] } });
    await h.advance(0);
    expect(prometheus.queries[0]).toBe(
      'max(http_requests_errors_ratio{namespace="payments", deployment="payments", pod_template_hash="7f9c6d8b5", route="\\"} or up{namespace=~\\".+"})',
    );
  });

  it("no measurement is taken after a cancel: the next one's timer ends with the observation", async () => {
    const prometheus = scriptedPrometheus([0.001, 0.001, 0.001]);
    const h = engineHarness({ analyses: prometheus });
    const id = await healthyAfterTwentySeconds(h);
    await h.advance(0);
    await h.engine.cancel(id, "rolled back by hand");
    await h.advance(120_000);
    expect(prometheus.queries).toHaveLength(1);
    expect(h.events.verdict(id).outcome).toBe("cancelled");
  });

  it("a replica adopting the window takes the measurements still to come, on the same schedule", async () => {
    const prometheus = scriptedPrometheus([0.001, 0.002, 0.003]);
    const h = engineHarness({ analyses: prometheus });
    const b = h.replica("replica-b");
    await h.first.startAdopting();
    await b.startAdopting();
    const id = await healthyAfterTwentySeconds(h);
    await h.advance(0);
    expect(prometheus.queries).toHaveLength(1);
    await h.first.shutDown();
    await h.advance(defaultLeaseTiming.scanEveryMs);
    expect(b.engine.activeCount).toBe(1);
    await h.advance(40_000);
    expect(prometheus.queries).toHaveLength(3);
    await h.advance(60_000);
    expect(h.events.verdict(id)).toMatchObject({
      outcome: "succeeded",
      reached: "verified",
      decidedAt: "2026-11-29T10:01:20.000Z",
      verification: { analyses: [{ name: "error-rate", status: "passed", taken: 3, last: 0.003 }] },
    });
  });

  it("a service without the analysis refuses the request, naming the field", async () => {
    const h = engineHarness();
    const result = await h.observe(verifiedRequest());
    expect(result).toMatchObject({ ok: false, code: "invalid_request", issues: [{ path: "verify.analyses[0].name", message: "no analysis 'error-rate' (the service's: none: the service has no --analyses)" }] });
  });
});

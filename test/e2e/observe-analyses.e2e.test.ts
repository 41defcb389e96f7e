/**
 * The `verified` stage's metric checks against a real Prometheus (Debian's package, started here,
 * scraping every second) that scrapes a small exporter this test runs: one gauge,
 * `http_requests_errors_ratio{namespace, deployment, pod_template_hash, route}`, whose values the
 * test sets for the revision the Deployment controller created. The operator's analyses file
 * names one check, error-rate; requests name it and give only its `route` argument.
 *
 * - a window whose measurements pass: verified, each measurement a progress event;
 * - a window failed by the metric, through the compiled CLI in local mode (--analyses,
 *   --prometheus-url, --analysis): the failure line with the count and the value;
 * - a caller trying to widen the query through the argument: the value stays inside its string
 *   literal, so the query selects nothing rather than another namespace's series, which exists
 *   and would have passed; an argument the template does not declare is refused;
 * - the budget ending inside the window: timed_out naming the stage and the check's last value.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { AppsV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { http } from "../cluster/probes.ts";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { AnalysesFile, parseWith, renderQuery, type AnalysisTemplate, type ObservationEvent } from "../../src/verdicts/index.js";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, kubeConfig, kubeconfigPath } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { installPrometheus, startPrometheus, type RunningPrometheus } from "./support/prometheus.ts";
import { apply, collect, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.ts";

const kc = kubeConfig();
const dir = scratchDir("observe-analyses");
/** Another team's namespace: only its series, no Kubernetes objects are needed to prove it is not read. */
const victim = "payments-prod";

const analysesFile = {
  analyses: [
    {
      name: "error-rate",
      args: [{ name: "route", default: "/" }],
      query: 'max(http_requests_errors_ratio{namespace="{{namespace}}", deployment="{{deployment}}", pod_template_hash="{{revision}}", route="{{args.route}}"})',
      successCondition: "result < 0.01",
      intervalSeconds: 1,
      count: 5,
      failureLimit: 2,
    },
    {
      name: "saturation",
      query: 'max(http_requests_errors_ratio{namespace="{{namespace}}", deployment="{{deployment}}", pod_template_hash="{{revision}}"})',
      successCondition: "result < 0.5",
      intervalSeconds: 5,
      count: 10,
    },
  ],
};
const analysesPath = join(dir, "analyses.yaml");
const parsedFile = parseWith(AnalysesFile, analysesFile);
if (!parsedFile.ok) throw new Error(JSON.stringify(parsedFile.issues));
const templates = new Map<string, AnalysisTemplate>(parsedFile.value.analyses.map((t) => [t.name, t]));

/** The exporter's series: the labels as the exposition format writes them, and the value. */
const series = new Map<string, number>();
function setRatio(labels: { namespace: string; deployment: string; hash: string; route?: string }, value: number): void {
  series.set(`namespace="${labels.namespace}",deployment="${labels.deployment}",pod_template_hash="${labels.hash}",route="${labels.route ?? "/"}"`, value);
}
const exporter: Server = createServer((_request, response) => {
  response.setHeader("content-type", "text/plain; version=0.0.4");
  response.end(["# TYPE http_requests_errors_ratio gauge", ...[...series].map(([labels, value]) => `http_requests_errors_ratio{${labels}} ${value}`), ""].join("\n"));
});

let namespace: string;
let prometheus: RunningPrometheus;
let stagewatch: StagewatchUnderTest;

beforeAll(async () => {
  writeFileSync(analysesPath, stringify(analysesFile));
  const [installed, created] = await Promise.all([installPrometheus(), createNamespace("observe-analyses")]);
  namespace = created;
  await new Promise<void>((resolve) => exporter.listen(0, "127.0.0.1", resolve));
  prometheus = await startPrometheus(installed.prometheus, dir, "app", [`127.0.0.1:${(exporter.address() as AddressInfo).port}`]);
  stagewatch = await startStagewatch({
    name: "analyses",
    analyses: { templates, prometheus: { url: prometheus.url } },
  });
}, 5 * 60_000);

afterAll(async () => {
  await stagewatch?.stop();
  await prometheus?.process.stop();
  await new Promise<void>((resolve) => exporter.close(() => resolve()));
  if (namespace) await deleteNamespace(namespace);
});

/** Applies Deployment `name` and returns the pod-template-hash of the ReplicaSet the controller made for it. */
async function rolledOut(name: string): Promise<{ identity: ReturnType<typeof deployment>["identity"]; manifest: ReturnType<typeof deployment>["manifest"]; hash: string }> {
  const workload = deployment({ namespace, name, replicas: 2 });
  await apply(kc, workload.manifest);
  const hash = await eventually(`${name}'s ReplicaSet`, async () => {
    const { items } = await kc.makeApiClient(AppsV1Api).listNamespacedReplicaSet({ namespace, labelSelector: `app=${name}` });
    return items[0]?.metadata?.labels?.["pod-template-hash"];
  });
  return { ...workload, hash };
}

/** Prometheus's answer to `expr` now: its series' values. */
async function valuesOf(expr: string): Promise<number[]> {
  const response = await http(`${prometheus.url}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = JSON.parse(response.body) as { status: string; error?: string; data?: { result: { value: [number, string] }[] } };
  if (body.status !== "success") throw new Error(`Prometheus refused ${expr}: ${body.error}`);
  return body.data!.result.map((sample) => Number(sample.value[1]));
}

/** Waits until Prometheus answers `expr` with `value`: the exporter's series was scraped. */
async function scraped(expr: string, value: number): Promise<void> {
  await eventually(`${expr} = ${value} in Prometheus`, async () => {
    const values = await valuesOf(expr);
    return values.length === 1 && values[0] === value ? true : undefined;
  });
}

const measurementsOf = (events: readonly ObservationEvent[]) => events.flatMap((event) => (event.type === "progress" && event.verification?.analyses ? [event.verification.analyses] : []));

describe("analyses of the verified stage on a real Prometheus", () => {
  it("a window whose measurements pass is verified, each measurement a progress event with the check's last value", async () => {
    const api = await rolledOut("api-pass");
    setRatio({ namespace, deployment: "api-pass", hash: api.hash }, 0.001);
    await scraped(`http_requests_errors_ratio{namespace="${namespace}", pod_template_hash="${api.hash}"}`, 0.001);

    const run = await stagewatch.observer.observe(
      observeRequest({ deployment: "api-pass", resources: [api.identity], require: "verified", verify: { windowSeconds: 8, analyses: [{ name: "error-rate" }] }, timeoutSeconds: 120 }),
    );
    const { events, verdict } = await collect(run);
    expect(events.filter((e) => e.type === "stage").map((e) => e.stage)).toEqual(["applied", "bootstrapped", "healthy", "verified"]);
    expect(verdict).toMatchObject({
      outcome: "succeeded",
      reached: "verified",
      verification: { windowSeconds: 8, analyses: [{ name: "error-rate", status: "passed", taken: 5, count: 5, failed: 0, inconclusive: 0, last: 0.001 }] },
    });
    expect(verdict.message).toMatch(/; analysis error-rate: 5 of 5 measurements, 0 failed, last 0\.001$/);
    expect(measurementsOf(events).map((analyses) => analyses[0]!.taken)).toEqual([1, 2, 3, 4, 5]);
  });

  it("a window failed by the metric, through the CLI in local mode: the failure line counts the failed measurements and shows the value", async () => {
    const api = await rolledOut("api-fail");
    setRatio({ namespace, deployment: "api-fail", hash: api.hash }, 0.042);
    await scraped(`http_requests_errors_ratio{namespace="${namespace}", pod_template_hash="${api.hash}"}`, 0.042);

    const manifest = writeManifest(join(dir, "api-fail.yaml"), [api.manifest]);
    const result = await runStagewatch(
      [
        "observe", "-f", manifest, "--deployment", "api-fail", "--timeout", "90s", "--json", "--mode", "local",
        "--require", "verified", "--verify-window", "10s", "--analysis", "error-rate:route=/",
        "--analyses", analysesPath, "--prometheus-url", prometheus.url,
      ],
      { env: { KUBECONFIG: kubeconfigPath() } },
    );
    expect(result.status, output(result)).toBe(1);
    const verdict = JSON.parse(result.stdout) as { message: string; outcome: string; failure: unknown; verification: unknown; mode: string };
    expect(verdict).toMatchObject({
      mode: "local",
      outcome: "failed",
      message: "deployment api-fail cannot reach verified: analysis error-rate failed 3 of 5 measurements (0.042 >= 0.01)",
      failure: { stage: "verified", reason: "AnalysisFailed", resource: { kind: "Deployment", name: "api-fail" } },
      verification: { analyses: [{ name: "error-rate", status: "failed", taken: 3, failed: 3, last: 0.042 }] },
    });
  });

  it("an argument cannot widen the query: escaped, it selects nothing, never another namespace's series; an undeclared argument is refused", async () => {
    const api = await rolledOut("api-widen");
    // The caller's own series fails the check; another namespace's would pass it, were it read.
    setRatio({ namespace, deployment: "api-widen", hash: api.hash }, 0.5);
    setRatio({ namespace: victim, deployment: "api-widen", hash: api.hash }, 0);
    await scraped(`http_requests_errors_ratio{namespace="${victim}", pod_template_hash="${api.hash}"}`, 0);
    const widening = `/none"} or max(http_requests_errors_ratio{namespace="${victim}"}) or http_requests_errors_ratio{route="/none`;

    const run = await stagewatch.observer.observe(
      observeRequest({
        deployment: "api-widen",
        resources: [api.identity],
        require: "verified",
        verify: { windowSeconds: 8, analyses: [{ name: "error-rate", args: { route: widening } }] },
        timeoutSeconds: 120,
      }),
    );
    const { verdict } = await collect(run);
    expect(verdict).toMatchObject({
      outcome: "failed",
      message: "deployment api-widen cannot reach verified: analysis error-rate was inconclusive 1 of 5 measurements (the query returned no series)",
      failure: { stage: "verified", reason: "AnalysisInconclusive" },
      verification: { analyses: [{ name: "error-rate", status: "failed", taken: 1, inconclusive: 1 }] },
    });

    // The query as the service sent it selects nothing; the same text spliced in unescaped, as a
    // template engine without quoting would, reads the other namespace's series.
    const template = templates.get("error-rate")!;
    const sent = renderQuery(template, { namespace, deployment: "api-widen", revision: api.hash, args: { route: widening } });
    expect(await valuesOf(sent)).toEqual([]);
    const spliced = template.query.replace("{{namespace}}", namespace).replace("{{deployment}}", "api-widen").replace("{{revision}}", api.hash).replace("{{args.route}}", widening);
    expect(await valuesOf(spliced)).toEqual([0]);

    await expect(
      stagewatch.observer.observe(
        observeRequest({ deployment: "api-widen", resources: [api.identity], require: "verified", verify: { windowSeconds: 8, analyses: [{ name: "error-rate", args: { namespace: victim } }] }, timeoutSeconds: 120 }),
      ),
    ).rejects.toMatchObject({ code: "invalid_request", issues: [{ path: "verify.analyses[0].args.namespace", message: "analysis error-rate declares no argument 'namespace'" }] });
  });

  it("the budget ending inside the window times out naming the stage and each check's measurements and last value", async () => {
    const api = await rolledOut("api-budget");
    setRatio({ namespace, deployment: "api-budget", hash: api.hash }, 0.003);
    await scraped(`http_requests_errors_ratio{namespace="${namespace}", pod_template_hash="${api.hash}"}`, 0.003);

    // A deadline, not timeoutSeconds: the window is longer than what is left of the budget, which
    // a request can only say with an absolute deadline (a timeout must be longer than the window).
    const deadline = new Date(Date.now() + 12_000).toISOString();
    const run = await stagewatch.observer.observe(
      observeRequest({
        deployment: "api-budget",
        resources: [api.identity],
        require: "verified",
        verify: { windowSeconds: 60, analyses: [{ name: "error-rate" }, { name: "saturation" }] },
        timeoutSeconds: undefined,
        deadline,
      }),
    );
    const { verdict } = await collect(run);
    expect(verdict).toMatchObject({ outcome: "timed_out", reached: "healthy", failure: { stage: "verified", reason: "VerificationWindowOpen" } });
    expect(verdict.message).toMatch(
      /^deployment api-budget did not reach verified within \d+s: the verification window ran \d+s of 1m0s after healthy; .*; analysis error-rate: 5 of 5 measurements, 0 failed, last 0\.003; analysis saturation: [1-3] of 10 measurements, 0 failed, last 0\.003 so far$/,
    );
    expect(verdict.verification?.analyses?.map((a) => a.status)).toEqual(["passed", "running"]);
  });
});

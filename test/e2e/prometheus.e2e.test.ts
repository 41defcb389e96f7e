/**
 * The Grafana dashboard against a real Prometheus (Debian's package, started here on a free
 * loopback port with its own config and storage) scraping a real `stagewatch serve` while it
 * observes real deployments: every PromQL expression in the dashboard must parse and return data.
 * And `promtool check metrics` must accept the service's /metrics.
 *
 * Every panel gets something to show: a deployment with a bootstrap Job reaching verified (all
 * four stages, through a verification window), one whose pod is stuck in ImagePullBackOff (a failure with the cluster's reason),
 * and a custom resource whose CRD is then deleted, which ends the service's watch of that kind as
 * it would in a cluster (a watch restart).
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AppsV1Api,
  BatchV1Api,
  CustomObjectsApi,
  type V1Deployment,
  type V1Job,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHART_DIR } from "../cluster/helm.ts";
import { http } from "../cluster/probes.ts";
import { scratchDir, writeManifest, type RunningProcess } from "../cluster/stagewatch.ts";
import { runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, FAULT_LABEL, Fault, kubeConfig } from "./support/cluster.ts";
import { installKind, removeKind } from "./support/crds.ts";
import { installPrometheus, startPrometheus } from "./support/prometheus.ts";
import { useServes, type ServeUnderPrefix } from "./support/serve.ts";

const JOB = "stagewatch";

const dashboardText = readFileSync(join(CHART_DIR, "dashboards/stagewatch.json"), "utf8");
const dashboard = JSON.parse(dashboardText) as {
  panels: { title: string; type: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; type: string; definition?: string }[] };
};

/** Every PromQL expression of every panel, with its panel's title. */
function dashboardQueries(): { panel: string; expr: string }[] {
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));
}

/** What Grafana does before sending a query: the dashboard's variables and its rate interval. */
function substitute(expr: string, variables: Record<string, string>): string {
  return expr
    .replaceAll("$__rate_interval", "1m")
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
      const value = variables[braced ?? bare ?? ""];
      if (value === undefined) throw new Error(`unknown dashboard variable ${whole} in ${expr}`);
      return value;
    });
}

interface QueryResult {
  status: string;
  error?: string;
  data?: { resultType: string; result: unknown[] };
}

function deployment(name: string, namespace: string, podLabels: Record<string, string> = {}): V1Deployment {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: { metadata: { labels: { ...labels, ...podLabels } }, spec: { containers: [{ name: "app", image: `registry.example/${name}:2.3.0` }] } },
    },
  };
}

function bootstrapJob(name: string, namespace: string): V1Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace, labels: { "stagewatch.io/bootstrap": "true" } },
    spec: {
      backoffLimit: 0,
      template: { spec: { restartPolicy: "Never", containers: [{ name: "migrate", image: "registry.example/checkout-migrate:2.3.0" }] } },
    },
  };
}

describe("the Grafana dashboard on a real Prometheus scraping stagewatch serve", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  const serves = useServes();
  const group = `e2e-${randomBytes(3).toString("hex")}.stagewatch.io`;
  let promtool: string;
  let dir: string;
  let app: string;
  let service: ServeUnderPrefix;
  let prometheus: RunningProcess | undefined;
  let prometheusUrl: string;

  async function query(expr: string): Promise<QueryResult> {
    const response = await http(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    return JSON.parse(response.body) as QueryResult;
  }

  async function observe(name: string, manifest: object[], expectStatus: number, extra: readonly string[] = []): Promise<void> {
    const file = writeManifest(join(dir, `${name}.yaml`), manifest);
    const result = await runStagewatch(["observe", "-f", file, "--deployment", name, "--timeout", "90s", `--subject-prefix=${service.prefix}`, "--json", ...extra], { cwd: dir });
    expect(result.status, `${name}: ${result.stderr}\n${result.stdout}`).toBe(expectStatus);
  }

  beforeAll(async () => {
    const installed = await installPrometheus();
    promtool = installed.promtool;
    dir = scratchDir("prometheus");
    app = await createNamespace("prom-app");
    cleanups.push(() => deleteNamespace(app));

    service = await serves.start({ name: "prom" });

    const running = await startPrometheus(installed.prometheus, dir, JOB, [`127.0.0.1:${service.port}`]);
    prometheus = running.process;
    prometheusUrl = running.url;

    // Something for every panel: stages, a failure with its reason, a watch restart.
    const kc = kubeConfig();
    const checkout = deployment("checkout", app);
    const migrate = bootstrapJob("checkout-migrate", app);
    const search = deployment("search", app, { [FAULT_LABEL]: Fault.ImagePullBackOff });
    await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace: app, body: migrate });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: app, body: checkout });
    await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace: app, body: search });
    // Created with its status in one request: no status subresource on this kind.
    const widget = await installKind(group, "Widget", "widgets", { statusSubresource: false });
    cleanups.push(() => removeKind(widget));
    await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group,
      version: "v1",
      namespace: app,
      plural: "widgets",
      body: {
        apiVersion: `${group}/v1`,
        kind: "Widget",
        metadata: { name: "storefront" },
        status: {
          observedGeneration: 1,
          conditions: [{ type: "Ready", status: "True", reason: "Reconciled", message: "storefront is serving", lastTransitionTime: new Date().toISOString() }],
        },
      },
    });

    // Through a short verification window: the stage after healthy and its windows' panel.
    await observe("checkout", [migrate, checkout], 0, ["--require", "verified", "--verify-window", "3s"]);
    await observe("search", [search], 1);
    await observe("storefront", [{ apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "storefront", namespace: app } }], 0);

    // A CRD deleted under a running watch: the API server ends the watch, the service restarts it.
    await removeKind(widget);
    await eventually("a watch restart on /metrics", async () => {
      const metrics = await http(`${service.url}/metrics`);
      return /^stagewatch_watch_restarts_total\{[^}]*kind="[^"]*Widget"/m.test(metrics.body) ? true : undefined;
    });
  }, 10 * 60_000);

  afterAll(async () => {
    await prometheus?.stop();
    await Promise.allSettled(cleanups.map((cleanup) => cleanup()));
  });

  it("uses the datasource variable everywhere and no fixed datasource UID", () => {
    const uids = [...dashboardText.matchAll(/"uid":\s*"([^"]*)"/g)].map((match) => match[1]);
    const datasourceUids = uids.filter((uid) => uid !== "stagewatch");
    expect(datasourceUids.length).toBeGreaterThan(0);
    expect(new Set(datasourceUids)).toEqual(new Set(["${datasource}"]));
    expect(dashboard.templating.list.find((variable) => variable.name === "datasource")?.type).toBe("datasource");
  });

  it("resolves the job variable from the scraped metrics", async () => {
    const variable = dashboard.templating.list.find((v) => v.name === "job");
    // label_values(METRIC, LABEL) is Grafana's; the same question in PromQL:
    const match = /^label_values\((\w+), (\w+)\)$/.exec(variable?.definition ?? "");
    expect(match).not.toBeNull();
    const result = await eventually("job values", async () => {
      const answer = await query(`group by (${match?.[2]}) (${match?.[1]})`);
      return answer.data?.result.length ? answer : undefined;
    });
    expect(result.data?.result).toEqual([{ metric: { job: JOB }, value: expect.any(Array) }]);
  });

  it("answers every panel query with data", async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(15);
    const answers = new Map<string, QueryResult>();
    // rate() and increase() need two samples of a series inside the window: wait for them.
    await eventually(
      "every dashboard query answering with data",
      async () => {
        for (const { expr } of queries) {
          if (answers.get(expr)?.data?.result.length) continue;
          answers.set(expr, await query(substitute(expr, { job: JOB })));
        }
        return queries.every(({ expr }) => answers.get(expr)?.data?.result.length) ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 2_000 },
    ).catch(() => undefined);
    const problems = queries
      .map(({ panel, expr }) => {
        const answer = answers.get(expr);
        if (answer?.status !== "success") return `${panel}: ${expr}: ${answer?.error ?? "no answer"}`;
        if (!answer.data?.result.length) return `${panel}: ${expr}: no data`;
        return undefined;
      })
      .filter((problem) => problem !== undefined);
    expect(problems).toEqual([]);

    // The panels carry what happened. Counters and histograms first appear when they first count,
    // so their rates here are 0 or NaN: Prometheus shows no increase for a series born at 1.
    const series = (title: string) => {
      const expr = queries.find((q) => q.panel === title)?.expr ?? "";
      return (answers.get(expr)?.data?.result ?? []) as { metric: Record<string, string>; value: [number, string] }[];
    };
    expect(series("Verdicts by outcome").map((s) => s.metric.outcome)).toEqual(expect.arrayContaining(["succeeded", "failed"]));
    expect(series("Failures by reason").map((s) => s.metric)).toContainEqual({ kind: "Deployment", reason: "ImagePullBackOff" });
    // `verified`'s series is born with the one window the setup ran, after the other stages' had
    // several samples: the panel can answer before it holds two samples of it. Asked again until it does.
    const stagePanel = queries.find((q) => q.panel === "Time to each stage (p95)")!.expr;
    const stagesShown = await eventually("verified in the stage panel", async () => {
      const answer = await query(substitute(stagePanel, { job: JOB }));
      const stages = ((answer.data?.result ?? []) as { metric: Record<string, string> }[]).map((s) => s.metric.stage).sort();
      return stages.includes("verified") ? stages : undefined;
    });
    expect(stagesShown).toEqual(["applied", "bootstrapped", "healthy", "verified"]);
    expect(series("Verification windows by result").map((s) => s.metric)).toEqual([{ result: "verified" }]);
    expect(series("Watch restarts").map((s) => s.metric)).toContainEqual({ kind: `${group}/Widget`, cause: "closed" });
    const informers = Object.fromEntries(series("Informer objects by kind").map((s) => [s.metric.kind, Number(s.value[1])]));
    expect(informers).toMatchObject({ "apps/Deployment": expect.any(Number), "core/Pod": expect.any(Number), "batch/Job": expect.any(Number) });
    expect(informers["apps/Deployment"]).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("passes promtool check metrics on /metrics", async () => {
    const metrics = await http(`${service.url}/metrics`);
    expect(metrics.status).toBe(200);
    const check = spawnSync(promtool, ["check", "metrics"], { input: metrics.body, encoding: "utf8" });
    expect(check.stdout + check.stderr).toBe("");
    expect(check.status).toBe(0);
  });
});


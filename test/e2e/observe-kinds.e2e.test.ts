/**
 * A chart-like set of the kinds beyond the workloads, observed through NATS against the real
 * control plane: a CronJob, a CRD and a custom resource of it created right after, a bare
 * ReplicaSet, a custom resource whose status has nested fields only, and an APIService whose
 * Service has no endpoints (pending with the aggregator's reason, then timed out naming it).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResourceIdentity } from "../../src/verdicts/contract/schemas.js";
import { kubeJson } from "../cluster/kubeJson.ts";
import { createNamespace, deleteNamespace, eventually, kubeConfig } from "./support/cluster.js";
import { installKind, removeKind, type TestKind } from "./support/crds.js";
import type { Manifest } from "./support/manifests.js";
import { apply, collect, nextReading, observeRequest, startStagewatch, type StagewatchUnderTest } from "./support/stagewatch.js";

const kc = kubeConfig();
const suffix = randomBytes(3).toString("hex");
const group = `kinds${suffix}.e2e.stagewatch.io`;
let stagewatch: StagewatchUnderTest;
let namespace: string;
let gadgets: TestKind | undefined;
const apiServiceName = `v1.metrics${suffix}.e2e.stagewatch.io`;

beforeAll(async () => {
  [stagewatch, namespace] = await Promise.all([startStagewatch({ name: "kinds" }), createNamespace("observe-kinds")]);
});

afterAll(async () => {
  // An aggregated group version nobody serves makes discovery partial for every client: remove it first.
  await kubeJson(kc, "DELETE", `/apis/apiregistration.k8s.io/v1/apiservices/${apiServiceName}`).catch(() => undefined);
  await stagewatch?.stop();
  if (gadgets) await removeKind(gadgets);
  if (namespace) await deleteNamespace(namespace);
});

const identityOf = (manifest: Manifest): ResourceIdentity => ({
  apiVersion: manifest.apiVersion,
  kind: manifest.kind,
  ...(manifest.metadata.namespace && { namespace: manifest.metadata.namespace }),
  name: manifest.metadata.name,
});

describe("a chart of CronJob, CRD and CRs, bare ReplicaSet", () => {
  it("reaches healthy: none of them waits for a status it never gets", async () => {
    const cronJob: Manifest = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "nightly-report", namespace },
      spec: {
        schedule: "0 3 * * *",
        jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "report", image: "registry.example/report:1" }] } } } },
      },
    };
    const replicaSet: Manifest = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "queue", namespace },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "queue" } },
        template: { metadata: { labels: { app: "queue" } }, spec: { containers: [{ name: "queue", image: "registry.example/queue:1" }] } },
      },
    };
    await apply(kc, cronJob, replicaSet);
    // As Helm installs a chart's crds/ before its templates: the CRD, served, then its resources.
    gadgets = await installKind(group, "Gadget", "gadgets");
    const crd: ResourceIdentity = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: gadgets.crdName };
    const press: Manifest = { apiVersion: gadgets.apiVersion, kind: "Gadget", metadata: { name: "press", namespace }, spec: { size: 3 } };
    await apply(kc, press);

    const run = await stagewatch.observer.observe(
      observeRequest({ deployment: "gadgets", timeoutSeconds: 60, resources: [identityOf(cronJob), crd, identityOf(press), identityOf(replicaSet)] }),
    );
    // The operator of Gadgets writes nested status only; until then the CR awaits its status.
    const events = run.progress[Symbol.asyncIterator]();
    const awaiting = await nextReading(events, (reading) => reading.identity.kind === "Gadget");
    expect(awaiting).toMatchObject({ state: "pending", reason: "AwaitingStatus" });
    const pressPath = `/apis/${group}/v1/namespaces/${namespace}/gadgets/press`;
    const current = await kubeJson(kc, "GET", pressPath);
    await kubeJson(kc, "PUT", `${pressPath}/status`, { ...current, status: { health: { status: "Healthy" }, nodes: [{ name: "press-0" }] } });

    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", reached: "healthy" });
    const byKind = Object.fromEntries(verdict.resources.map((r) => [r.identity.kind, r]));
    expect(byKind.CronJob).toMatchObject({ state: "settled", message: "exists, schedule 0 3 * * *" });
    expect(byKind.CustomResourceDefinition).toMatchObject({ state: "settled", message: "Established=True: the initial names have been accepted" });
    expect(byKind.Gadget).toMatchObject({ state: "settled", message: "no readiness signal (no conditions, phase or state); a health check for the kind would read it" });
    expect(byKind.ReplicaSet).toMatchObject({ state: "settled", message: "2/2 replicas ready" });
    await events.return?.();
  });
});

describe("an APIService whose Service has no endpoints", () => {
  it("is pending with MissingEndpoints, then times out naming it", async () => {
    const service: Manifest = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "metrics-api", namespace },
      spec: { selector: { app: "metrics-api" }, ports: [{ name: "https", port: 443, targetPort: 6443 }] },
    };
    const apiService: Manifest = {
      apiVersion: "apiregistration.k8s.io/v1",
      kind: "APIService",
      metadata: { name: apiServiceName },
      spec: {
        group: `metrics${suffix}.e2e.stagewatch.io`,
        version: "v1",
        service: { namespace, name: "metrics-api", port: 443 },
        groupPriorityMinimum: 100,
        versionPriority: 100,
        insecureSkipTLSVerify: true,
      },
    };
    await apply(kc, service, apiService);
    await eventually("the aggregator's verdict on the APIService", async () => {
      const object = await kubeJson(kc, "GET", `/apis/apiregistration.k8s.io/v1/apiservices/${apiServiceName}`);
      const conditions = ((object.status as { conditions?: { type: string; reason?: string }[] } | undefined)?.conditions ?? []);
      return conditions.some((c) => c.type === "Available" && c.reason === "MissingEndpoints") ? object : undefined;
    });

    const run = await stagewatch.observer.observe(
      observeRequest({ deployment: "metrics", timeoutSeconds: 10, resources: [identityOf(service), identityOf(apiService)] }),
    );
    const { events, verdict } = await collect(run);
    const missing = `endpointslices for service/metrics-api in "${namespace}" have no addresses with port name "https"`;
    expect(events).toContainEqual(
      expect.objectContaining({ type: "progress", resource: expect.objectContaining({ identity: identityOf(apiService), state: "pending", reason: "MissingEndpoints" }) }),
    );
    expect(verdict).toMatchObject({
      outcome: "timed_out",
      failure: { resource: identityOf(apiService), reason: "MissingEndpoints" },
      resources: [
        { identity: identityOf(service), state: "settled" },
        { identity: identityOf(apiService), state: "pending", reason: "MissingEndpoints", message: missing },
      ],
    });
    expect(verdict.message).toBe(`deployment metrics did not reach healthy within 10s: APIService ${apiServiceName}: ${missing}`);
  });
});

describe("a custom kind judged by a CEL health check from the service's configuration", () => {
  let judged: StagewatchUnderTest | undefined;
  let reactors: TestKind | undefined;
  const reactorGroup = `reactors${suffix}.e2e.stagewatch.io`;
  const check = {
    apiVersion: `${reactorGroup}/v1`,
    kind: "Reactor",
    inProgress: "has(status.phase) && status.phase == 'Starting'",
    failed: "has(status.phase) && status.phase == 'Meltdown'",
    current: "has(status.phase) && status.phase == 'Critical' && status.output.megawatts > 0",
  };

  afterAll(async () => {
    await judged?.stop();
    if (reactors) await removeKind(reactors);
  });

  async function writeStatus(name: string, status: Record<string, unknown>): Promise<void> {
    const path = `/apis/${reactorGroup}/v1/namespaces/${namespace}/reactors/${name}`;
    await kubeJson(kc, "PUT", `${path}/status`, { ...(await kubeJson(kc, "GET", path)), status });
  }

  it("is pending while inProgress holds, settled when current holds, failed when failed holds", async () => {
    reactors = await installKind(reactorGroup, "Reactor", "reactors");
    judged = await startStagewatch({ name: "cel", healthChecks: [check] });
    const reactor = (name: string): Manifest => ({ apiVersion: reactors!.apiVersion, kind: "Reactor", metadata: { name, namespace }, spec: { fuel: "thorium" } });
    const [steady, doomed] = [reactor("steady"), reactor("doomed")];
    await apply(kc, steady, doomed);
    await writeStatus("steady", { phase: "Starting" });

    const run = await judged.observer.observe(observeRequest({ deployment: "reactors", timeoutSeconds: 60, resources: [identityOf(steady)] }));
    const events = run.progress[Symbol.asyncIterator]();
    expect(await nextReading(events)).toMatchObject({ state: "pending", reason: "HealthCheckInProgress", message: `inProgress holds: ${check.inProgress}` });
    // Nested status the default cache would empty: the expression reads status.output.megawatts.
    await writeStatus("steady", { phase: "Critical", output: { megawatts: 1200 } });
    const verdict = await run.verdict;
    expect(verdict).toMatchObject({ outcome: "succeeded", resources: [{ state: "settled", message: `current holds: ${check.current}` }] });
    await events.return?.();

    await writeStatus("doomed", { phase: "Meltdown" });
    const failedRun = await judged.observer.observe(observeRequest({ deployment: "reactors", timeoutSeconds: 60, resources: [identityOf(doomed)] }));
    expect(await failedRun.verdict).toMatchObject({
      outcome: "failed",
      failure: { resource: identityOf(doomed), reason: "HealthCheckFailed", message: `failed holds: ${check.failed}` },
    });
  });
});

/**
 * The Helm chart, checked with the pinned Helm CLI (lint, template, schema) and against the real
 * API server: every rendered object is server-side applied with dryRun=All, so defaulting, schema
 * validation, admission and the RBAC escalation check all run, and nothing is persisted.
 *
 * The test cluster has no prometheus-operator, so the ServiceMonitor CRD is installed here in a
 * minimal form (group, kind, version, an open schema): the dry run then proves the object is
 * addressable and well-formed YAML, not that prometheus-operator's own schema accepts its fields.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type KubernetesObject,
  type V1ClusterRole,
  type V1Deployment,
  type V1Pod,
  type V1PolicyRule,
  type V1Role,
} from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyObjects, CHART_DIR, ensureHelm, lintChart, renderChart, templateChart, type ValueArgs } from "../cluster/helm.ts";
import { readHealthChecks } from "../../src/cli/inputs/healthChecksFile.ts";
import { createNamespace, deleteNamespace, kubeConfig } from "./support/cluster.ts";
import { installKind } from "./support/crds.ts";

const namespacedValues = join(CHART_DIR, "ci/namespaced-values.yaml");
const tlsValues = join(CHART_DIR, "ci/tls-values.yaml");

// The default values with the local cluster's answers to the chart's refusals (an open NATS, one
// account, unsigned: cluster/helm.ts), and the two sets of ci/, which need none.
const valueSets: { name: string; values: ValueArgs }[] = [
  { name: "default values", values: {} },
  { name: "namespaced, custom resources, ServiceMonitor, PDB, token auth, tenants, signing", values: { valuesFiles: [namespacedValues], intended: { unauthenticated: false, singleTenant: false, unsigned: false } } },
  { name: "creds file, mutual TLS, dashboard, tenants, signing", values: { valuesFiles: [tlsValues], intended: { unauthenticated: false, singleTenant: false, unsigned: false } } },
];

// A cold build of Helm from the Go module proxy takes minutes on two cores; later runs reuse it.
const HELM_BUILD_TIMEOUT_MS = 20 * 60_000;

function byKind<T extends KubernetesObject>(objects: KubernetesObject[], kind: string): T[] {
  return objects.filter((object) => object.kind === kind) as T[];
}

/** What `helm install` creates: the rendered objects but the hooks of `helm test` (templates/tests). */
function installed(objects: KubernetesObject[]): KubernetesObject[] {
  return objects.filter((object) => object.metadata?.annotations?.["helm.sh/hook"] === undefined);
}

/** What `helm test` creates. */
function testHooks(objects: KubernetesObject[]): KubernetesObject[] {
  return objects.filter((object) => object.metadata?.annotations?.["helm.sh/hook"] === "test");
}

function only<T>(items: T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

function deploymentOf(objects: KubernetesObject[]): V1Deployment {
  return only(byKind<V1Deployment>(objects, "Deployment"));
}

/** Verbs granted per `group/resource` by a set of rules. */
function grants(rules: V1PolicyRule[] | undefined): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const rule of rules ?? []) {
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) result.set(`${group}/${resource}`, [...rule.verbs].sort());
    }
  }
  return result;
}

beforeAll(async () => {
  await ensureHelm();
}, HELM_BUILD_TIMEOUT_MS);

describe("helm lint", () => {
  it.each(valueSets)("passes --strict with $name", ({ values }) => {
    const result = lintChart(values);
    expect(result.stderr + result.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(result.status).toBe(0);
  });
});

describe("helm template with default values", () => {
  const objects = () => renderChart({ releaseName: "stagewatch", namespace: "platform" });

  it("renders exactly the objects a cluster-wide install needs", () => {
    const kinds = objects().map((object) => `${object.kind}/${object.metadata?.name}`).sort();
    expect(kinds).toEqual([
      "ClusterRole/stagewatch",
      "ClusterRole/stagewatch-discovery",
      "ClusterRoleBinding/stagewatch",
      "ClusterRoleBinding/stagewatch-discovery",
      "Deployment/stagewatch",
      "NetworkPolicy/stagewatch",
      "Service/stagewatch",
      "ServiceAccount/stagewatch",
    ]);
  });

  it("runs the service non-root, read-only, without privileges, with probes and resources", () => {
    const pod = deploymentOf(objects()).spec?.template.spec;
    const container = only(pod?.containers ?? []);
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: "RuntimeDefault" } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      privileged: false,
      capabilities: { drop: ["ALL"] },
    });
    expect(container.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    expect(container.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "metrics" });
    expect(container.resources?.requests).toEqual({ cpu: "50m", memory: "320Mi" });
    expect(container.resources?.limits).toEqual({ cpu: "1", memory: "512Mi" });
    expect(container.image).toBe("stagewatch:0.1.0");
    expect(container.args).toEqual([
      "serve",
      "--metrics-host=0.0.0.0",
      "--metrics-port=9090",
      "--subject-prefix=stagewatch",
      "--log-level=info",
      "--jetstream-replicas=1",
      "--replicas=1",
      "--lease-duration=15s",
      "--shutdown-grace=20s",
      "--warning-events=true",
      // Watching the whole cluster, Secrets only where rbac.secretNamespaces names (none by default).
      "--secret-namespaces=",
      "--max-in-flight=2000",
      "--max-in-flight-per-caller=500",
      "--requests-per-second=50",
      "--gets-per-second=100",
      "--cancels-per-second=20",
      "--lists-per-second=5",
      "--max-pending-per-caller=200",
      "--event-stream-max-bytes=256MiB",
      "--max-events-per-observation=10000",
      "--records-max-bytes=256MiB",
      "--leases-max-bytes=32MiB",
      "--max-log-reads=8",
      "--max-deployment-labels=500",
      "--cel-cost-limit=1000000",
      "--jetstream-wait=60s",
    ]);
    expect(container.env).toEqual([
      { name: "STAGEWATCH_REPLICA_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "NATS_URL", value: "nats://nats:4222" },
    ]);
    // The replica hands its leases back within --shutdown-grace; the pod's grace leaves room for it.
    expect(pod?.terminationGracePeriodSeconds).toBe(30);
  });

  it("grants read access to the observable kinds only, no get on ConfigMaps and no Secrets cluster-wide", () => {
    const rendered = objects();
    const role = byKind<V1ClusterRole>(rendered, "ClusterRole").find((r) => r.metadata?.name === "stagewatch");
    const granted = grants(role?.rules);
    const read = ["get", "list", "watch"];
    const listWatch = ["list", "watch"];
    expect(Object.fromEntries(granted)).toEqual({
      "apps/deployments": read,
      "apps/replicasets": read,
      "apps/statefulsets": read,
      "apps/daemonsets": read,
      "batch/jobs": read,
      "/pods": read,
      "/events": listWatch,
      "/configmaps": listWatch,
      "/services": listWatch,
      "/serviceaccounts": listWatch,
      "/persistentvolumeclaims": listWatch,
      "rbac.authorization.k8s.io/roles": listWatch,
      "rbac.authorization.k8s.io/rolebindings": listWatch,
      "batch/cronjobs": listWatch,
      "networking.k8s.io/ingresses": listWatch,
      "networking.k8s.io/networkpolicies": listWatch,
      "autoscaling/horizontalpodautoscalers": listWatch,
      "policy/poddisruptionbudgets": listWatch,
      "/namespaces": listWatch,
      "rbac.authorization.k8s.io/clusterroles": listWatch,
      "rbac.authorization.k8s.io/clusterrolebindings": listWatch,
      "apiextensions.k8s.io/customresourcedefinitions": listWatch,
      "apiregistration.k8s.io/apiservices": listWatch,
    });
    for (const rule of role?.rules ?? []) expect(rule.verbs.every((verb) => read.includes(verb))).toBe(true);
  });

  it("renders no NetworkPolicy when told not to", () => {
    expect(byKind(renderChart({ set: { "networkPolicy.enabled": false } }), "NetworkPolicy")).toEqual([]);
  });
});

describe("helm template: Secrets' namespaces, the NetworkPolicy, limits", () => {
  it("lists Secrets in the namespaces rbac.secretNamespaces names only, a Role each, and tells the service", () => {
    const objects = renderChart({ releaseName: "stagewatch", namespace: "platform", set: { "rbac.secretNamespaces": ["payments", "billing"] } });
    const roles = byKind<V1Role>(objects, "Role");
    expect(roles.map((r) => [r.metadata?.name, r.metadata?.namespace, Object.fromEntries(grants(r.rules))])).toEqual([
      ["stagewatch-secrets", "payments", { "/secrets": ["list", "watch"] }],
      ["stagewatch-secrets", "billing", { "/secrets": ["list", "watch"] }],
    ]);
    const clusterRole = byKind<V1ClusterRole>(objects, "ClusterRole").find((r) => r.metadata?.name === "stagewatch");
    expect(grants(clusterRole?.rules).has("/secrets")).toBe(false);
    expect(only(deploymentOf(objects).spec?.template.spec?.containers ?? []).args).toContain("--secret-namespaces=payments,billing");
  });

  it("the NetworkPolicy, on by default: metrics from the monitoring namespace; egress to DNS, the API server and NATS only", () => {
    const objects = renderChart({ releaseName: "stagewatch", namespace: "platform", set: { "networkPolicy.apiServer.cidrs": ["10.96.0.1/32"] } });
    const policy = only(byKind<KubernetesObject & { spec: Record<string, unknown> }>(objects, "NetworkPolicy"));
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { "app.kubernetes.io/name": "stagewatch", "app.kubernetes.io/instance": "stagewatch" } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [{ from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }], ports: [{ port: 9090, protocol: "TCP" }] }],
      egress: [
        {
          to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } }, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
          ports: [
            { port: 53, protocol: "UDP" },
            { port: 53, protocol: "TCP" },
          ],
        },
        { ports: [{ port: 443, protocol: "TCP" }, { port: 6443, protocol: "TCP" }], to: [{ ipBlock: { cidr: "10.96.0.1/32" } }] },
        { to: [{ namespaceSelector: {}, podSelector: { matchLabels: { "app.kubernetes.io/name": "nats" } } }], ports: [{ port: 4222, protocol: "TCP" }] },
      ],
    });
  });

  it("metrics from no one: no ingress rule at all, since a rule with an empty `from` would admit everyone", () => {
    const policy = only(byKind<KubernetesObject & { spec: Record<string, unknown> }>(renderChart({ set: { "networkPolicy.metrics.from": [] } }), "NetworkPolicy"));
    expect(policy.spec).toMatchObject({ policyTypes: ["Ingress", "Egress"], ingress: [] });
  });

  it("metrics from the peers the operator names only; extra egress beside the policy's own", () => {
    const namespaced = only(byKind<KubernetesObject & { spec: { ingress: unknown[]; egress: unknown[] } }>(installed(renderChart({ valuesFiles: [namespacedValues] })), "NetworkPolicy"));
    expect(namespaced.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } }, podSelector: { matchLabels: { "app.kubernetes.io/name": "prometheus" } } }],
        ports: [{ port: 9090, protocol: "TCP" }],
      },
    ]);
    const tls = only(byKind<KubernetesObject & { spec: { egress: unknown[] } }>(installed(renderChart({ valuesFiles: [tlsValues] })), "NetworkPolicy"));
    expect(tls.spec.egress).toHaveLength(4);
    expect(tls.spec.egress[3]).toEqual({
      to: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "observability" } }, podSelector: { matchLabels: { "app.kubernetes.io/name": "otel-collector" } } }],
      ports: [{ port: 4318, protocol: "TCP" }],
    });
  });

  it("passes every limit to the service as its flag", () => {
    const limits = { maxInFlight: 10, maxInFlightPerCaller: 5, requestsPerSecond: 2, getsPerSecond: 7, cancelsPerSecond: 3, listsPerSecond: 1, maxPendingPerCaller: 40, eventStreamMaxBytes: "2GiB", maxEventsPerObservation: 100, recordsMaxBytes: "64MiB", leasesMaxBytes: "8MiB", maxLogReads: 2, maxDeploymentLabels: 50, celCostLimit: 5000000, jetstreamWait: "2m" };
    const objects = renderChart({ set: { replicaCount: 3, limits } });
    const args = only(deploymentOf(objects).spec?.template.spec?.containers ?? []).args ?? [];
    expect(args).toEqual(expect.arrayContaining(["--max-in-flight=10", "--records-max-bytes=64MiB", "--cel-cost-limit=5000000", "--jetstream-wait=2m"]));
    // Per-caller quotas hold for the service as a whole: the replicas running share them.
    expect(args).toEqual(expect.arrayContaining(["--replicas=3", "--gets-per-second=7", "--cancels-per-second=3", "--lists-per-second=1", "--max-pending-per-caller=40"]));
  });
});

describe("helm template with non-default values", () => {
  it("namespaced: Roles in each listed namespace, no cluster-wide object access, ServiceMonitor, PDB, token", () => {
    const objects = renderChart({ releaseName: "sw", namespace: "platform", valuesFiles: [namespacedValues] });
    const clusterRoles = byKind<V1ClusterRole>(objects, "ClusterRole");
    // Only discovery stays cluster-wide, and it names no resources.
    expect(clusterRoles.map((r) => r.metadata?.name)).toEqual(["sw-stagewatch-discovery"]);
    expect(clusterRoles[0]?.rules?.every((rule) => rule.resources === undefined)).toBe(true);

    const roles = byKind<V1Role>(objects, "Role");
    expect(roles.map((r) => r.metadata?.namespace)).toEqual(["team-a", "team-b"]);
    const granted = grants(roles[0]?.rules);
    expect(granted.get("cert-manager.io/certificates")).toEqual(["get", "list", "watch"]);
    expect(granted.get("example.stagewatch.io/widgets")).toEqual(["get", "list", "watch"]);
    expect(granted.get("/secrets")).toEqual(["list", "watch"]);
    expect(granted.has("/namespaces")).toBe(false);
    // warningEvents: false drops the events watch and its RBAC together.
    expect(granted.has("/events")).toBe(false);
    // containerLogs.enabled: the failing container's log tail, read with get on pods/log only.
    expect(granted.get("/pods/log")).toEqual(["get"]);
    const bindings = byKind<KubernetesObject & { subjects: { namespace: string; name: string }[] }>(objects, "RoleBinding");
    expect(bindings.map((b) => [b.metadata?.namespace, b.subjects])).toEqual([
      ["team-a", [{ kind: "ServiceAccount", name: "sw-stagewatch", namespace: "platform" }]],
      ["team-b", [{ kind: "ServiceAccount", name: "sw-stagewatch", namespace: "platform" }]],
    ]);

    const deployment = deploymentOf(objects);
    const container = only(deployment.spec?.template.spec?.containers ?? []);
    expect(deployment.spec?.replicas).toBe(2);
    expect(container.args).toContain("--namespaces=team-a,team-b");
    expect(container.args).toContain("--warning-events=false");
    expect(container.args).toContain("--subject-prefix=platform.stagewatch");
    expect(container.args).toContain("--container-logs");
    expect(container.env).toContainEqual({ name: "NATS_TOKEN_FILE", value: "/etc/stagewatch/nats-credentials/token" });
    expect(deployment.spec?.template.spec?.volumes).toContainEqual({
      name: "nats-credentials",
      secret: { secretName: "stagewatch-nats", defaultMode: 288, items: [{ key: "token", path: "token" }] },
    });

    const monitor = only(byKind<KubernetesObject & { spec: unknown }>(objects, "ServiceMonitor"));
    expect(monitor.metadata?.labels).toMatchObject({ release: "kube-prometheus-stack" });
    expect(monitor.spec).toMatchObject({ endpoints: [{ port: "metrics", path: "/metrics", interval: "15s" }] });
    const pdb = only(byKind<KubernetesObject & { spec: unknown }>(objects, "PodDisruptionBudget"));
    expect(pdb.spec).toMatchObject({ maxUnavailable: 1 });

    // The CEL health checks reach `serve --health-checks` as a file the service accepts.
    const checks = only(byKind<KubernetesObject & { data: Record<string, string> }>(objects, "ConfigMap").filter((c) => c.metadata?.name === "sw-stagewatch-health-checks"));
    expect(container.args).toContain("--health-checks=/etc/stagewatch/health-checks/health-checks.yaml");
    expect(container.volumeMounts).toContainEqual({ name: "health-checks", mountPath: "/etc/stagewatch/health-checks", readOnly: true });
    expect(deployment.spec?.template.spec?.volumes).toContainEqual({ name: "health-checks", configMap: { name: "sw-stagewatch-health-checks" } });
    expect(deployment.spec?.template.metadata?.annotations?.["checksum/health-checks"]).toMatch(/^[0-9a-f]{64}$/);
    const file = join(mkdtempSync(join(tmpdir(), "chart-health-checks-")), "health-checks.yaml");
    writeFileSync(file, checks.data["health-checks.yaml"]!);
    expect([...readHealthChecks(file).keys()]).toEqual(["cert-manager.io/Certificate"]);
  });

  it("creds file and mutual TLS, tenants and signing: Secrets mounted read-only, file paths in the environment, dashboard ConfigMap", () => {
    const objects = renderChart({ releaseName: "stagewatch", namespace: "platform", valuesFiles: [tlsValues] });
    const pod = deploymentOf(objects).spec?.template.spec;
    const container = only(pod?.containers ?? []);
    expect(container.env).toEqual([
      { name: "STAGEWATCH_REPLICA_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "NATS_URL", value: "tls://nats.messaging.svc:4222" },
      { name: "NATS_CREDS_FILE", value: "/etc/stagewatch/nats-credentials/stagewatch.creds" },
      { name: "STAGEWATCH_TENANTS_FILE", value: "/etc/stagewatch/tenants/teams.yaml" },
      // Traces (tracing.*): the standard OTEL_* variables, the collector's headers from their Secret.
      { name: "OTEL_EXPORTER_OTLP_ENDPOINT", value: "http://otel-collector.observability:4318" },
      { name: "OTEL_SERVICE_NAME", value: "stagewatch" },
      { name: "OTEL_RESOURCE_ATTRIBUTES", value: "k8s.pod.name=$(STAGEWATCH_REPLICA_ID),k8s.namespace.name=platform" },
      { name: "OTEL_EXPORTER_OTLP_HEADERS", valueFrom: { secretKeyRef: { name: "otel-exporter", key: "headers" } } },
      { name: "STAGEWATCH_SIGNING_KEY_FILE", value: "/etc/stagewatch/signing/signing.nk" },
      { name: "STAGEWATCH_VERIFY_KEY", valueFrom: { configMapKeyRef: { name: "stagewatch-verify-keys", key: "STAGEWATCH_VERIFY_KEY" } } },
      { name: "NATS_TLS_CA_FILE", value: "/etc/stagewatch/nats-tls/ca.crt" },
      { name: "NATS_TLS_CERT_FILE", value: "/etc/stagewatch/nats-tls/tls.crt" },
      { name: "NATS_TLS_KEY_FILE", value: "/etc/stagewatch/nats-tls/tls.key" },
    ]);
    expect(container.volumeMounts?.every((mount) => mount.readOnly === true)).toBe(true);
    expect(pod?.volumes?.map((volume) => [volume.name, volume.secret?.secretName])).toEqual([
      ["nats-credentials", "stagewatch-nats-creds"],
      ["tenants", "stagewatch-tenants"],
      ["nats-tls", "stagewatch-nats-tls"],
      ["signing-key", "stagewatch-signing"],
    ]);
    expect(pod?.imagePullSecrets).toEqual([{ name: "registry-credentials" }]);
    expect(container.image).toBe("registry.example.com/platform/stagewatch:0.1.0");

    const configMaps = byKind<KubernetesObject & { data: Record<string, string> }>(installed(objects), "ConfigMap");
    expect(configMaps.map((configMap) => configMap.metadata?.name).sort()).toEqual(["stagewatch-dashboard", "stagewatch-verify-keys"]);
    const dashboard = only(configMaps.filter((configMap) => configMap.metadata?.name === "stagewatch-dashboard"));
    expect(dashboard.metadata?.labels).toMatchObject({ grafana_dashboard: "1" });
    expect(dashboard.metadata?.annotations).toEqual({ grafana_folder: "Platform" });
    const shipped = JSON.parse(readFileSync(join(CHART_DIR, "dashboards/stagewatch.json"), "utf8")) as unknown;
    expect(JSON.parse(dashboard.data["stagewatch.json"] ?? "")).toEqual(shipped);
  });

});

describe("wrong values fail at install with a clear message", () => {
  it.each([
    { name: "a string replica count", set: { replicaCount: "two" }, message: "at '/replicaCount': got string, want integer" },
    { name: "an unknown key", set: { replica: 2 }, message: "additional properties 'replica' not allowed" },
    { name: "a size that is no size", set: { "limits.recordsMaxBytes": "lots" }, message: "at '/limits/recordsMaxBytes'" },
    { name: "a limit of zero", set: { "limits.maxInFlight": 0 }, message: "at '/limits/maxInFlight': minimum: got 0, want 1" },
    { name: "an unknown log level", set: { logLevel: "verbose" }, message: "at '/logLevel': value must be one of" },
    { name: "a privileged metrics port", set: { "metrics.port": 80 }, message: "at '/metrics/port': minimum: got 80, want 1,024" },
    { name: "a namespace that is no DNS label", set: { namespaces: ["Team_A"] }, message: "at '/namespaces/0': 'Team_A' does not match pattern" },
    { name: "an http NATS URL", set: { "nats.url": "http://nats:4222" }, message: "at '/nats/url'" },
    { name: "an unknown auth type", set: { "nats.auth.type": "password" }, message: "at '/nats/auth/type': value must be one of" },
    { name: "inline NATS credentials", set: { "nats.auth.token": "s3cr3t" }, message: "additional properties 'token' not allowed" },
    {
      name: "token auth without a Secret",
      set: { "nats.auth.type": "token" },
      message: "nats.auth.existingSecret: name the existing Secret that holds the NATS credentials (nats.auth.type is token)",
    },
    {
      name: "TLS without a Secret",
      set: { "nats.tls.enabled": true },
      message: "nats.tls.existingSecret: name the existing Secret that holds the NATS CA certificate",
    },
    { name: "a custom resource without resources", set: { customResources: [{ apiGroup: "example.com" }] }, message: "missing property 'resources'" },
  ])("$name", ({ set, message }) => {
    const result = templateChart({ set });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it("a NATS without authentication not said to be intended", () => {
    const result = templateChart({ intended: { unauthenticated: false } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("nats.auth.type is none: anyone who reaches that NATS may send requests as any caller");
    expect(templateChart({ intended: { unauthenticated: false }, set: { "nats.auth.unauthenticated": "yes" } }).stderr).toContain("at '/nats/auth/unauthenticated': value must be one of");
  });

  it("no tenants file not said to be intended: refused, naming the value to set", () => {
    const result = templateChart({ intended: { singleTenant: false } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("tenants.existingSecret: name the Secret that holds the tenants file");
    expect(result.stderr).toContain("Set tenants.singleTenant=intended if that is what you mean");
    expect(templateChart({ intended: { singleTenant: false }, set: { "tenants.singleTenant": "yes" } }).stderr).toContain("at '/tenants/singleTenant': value must be one of");
    expect(templateChart({ intended: { singleTenant: false }, set: { "tenants.existingSecret": "stagewatch-tenants" } }).status).toBe(0);
  });

  it("no signing key not said to be intended: refused, naming the value to set", () => {
    const result = templateChart({ intended: { unsigned: false } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("signing.existingSecret and signing.publicKeys: give the service a signing key");
    expect(result.stderr).toContain("Set signing.unsigned=intended if that is what you mean");
    expect(templateChart({ intended: { unsigned: false }, set: { "signing.unsigned": "yes" } }).stderr).toContain("at '/signing/unsigned': value must be one of");
    const signed = { existingSecret: "stagewatch-signing", publicKeys: ["NDV56JXZSGQDWYYKNHNPJGOMJASLD6YH5OCFXJEMM3CT4GRVZ3VYGRTQ"] };
    expect(templateChart({ intended: { unsigned: false }, set: { signing: signed } }).status).toBe(0);
  });

  it("the chart's own defaults, nothing said: refused", () => {
    const result = templateChart({ intended: { unauthenticated: false, singleTenant: false, unsigned: false } });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/nats\.auth\.type is none|tenants\.existingSecret|signing\.existingSecret/);
  });
});

describe("tenants and NATS credentials come from files", () => {
  it("the tenants file and the user and password are the Secrets' files, mounted; no secret is an environment value", () => {
    const objects = renderChart({ intended: { unauthenticated: false }, set: { "nats.auth": { type: "userPassword", existingSecret: "nats-login" }, tenants: { existingSecret: "stagewatch-tenants" } } });
    const pod = deploymentOf(objects).spec!.template.spec!;
    const env = Object.fromEntries((only(pod.containers).env ?? []).map((variable) => [variable.name, variable.value ?? variable.valueFrom]));
    expect(env).toMatchObject({
      NATS_USER_FILE: "/etc/stagewatch/nats-credentials/user",
      NATS_PASSWORD_FILE: "/etc/stagewatch/nats-credentials/password",
      STAGEWATCH_TENANTS_FILE: "/etc/stagewatch/tenants/tenants.yaml",
    });
    expect(Object.keys(env).filter((name) => ["NATS_USER", "NATS_PASSWORD", "NATS_TOKEN"].includes(name))).toEqual([]);
    expect((pod.volumes ?? []).map((volume) => [volume.name, volume.secret?.secretName, volume.secret?.items?.map((item) => item.key)])).toEqual([
      ["nats-credentials", "nats-login", ["user", "password"]],
      ["tenants", "stagewatch-tenants", ["tenants.yaml"]],
    ]);
  });
});

describe("helm test: the test hook (templates/tests/observe.yaml)", () => {
  const testHook = "templates/tests/observe.yaml";
  const hookOf = (values: ValueArgs) => renderChart({ ...values, releaseName: "stagewatch", namespace: "platform", showOnly: testHook });
  const testPod = (objects: KubernetesObject[]) => only(byKind<V1Pod>(objects, "Pod"));
  const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
    Object.entries(selector ?? {}).every(([key, value]) => labels?.[key] === value);

  it("is off by default: helm test then has nothing to run", () => {
    expect(testHooks(renderChart())).toEqual([]);
  });

  it("observes the release's own Deployment by default, as a tenant over NATS, with the service's security context and the published keys", () => {
    const hook = hookOf({ valuesFiles: [tlsValues] });
    expect(hook.map((object) => [object.kind, object.metadata?.annotations])).toEqual([
      ["NetworkPolicy", { "helm.sh/hook": "test", "helm.sh/hook-weight": "-1", "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded" }],
      ["ConfigMap", { "helm.sh/hook": "test", "helm.sh/hook-weight": "-1", "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded" }],
      ["Pod", { "helm.sh/hook": "test", "helm.sh/hook-delete-policy": "before-hook-creation,hook-succeeded" }],
    ]);
    const target = only(byKind<KubernetesObject & { data: Record<string, string> }>(hook, "ConfigMap"));
    expect(target.data["target.yaml"]).toBe("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: stagewatch\n  namespace: platform\n");

    const service = deploymentOf(renderChart({ releaseName: "stagewatch", namespace: "platform", valuesFiles: [tlsValues] })).spec!.template.spec!;
    const pod = testPod(hook).spec!;
    const container = only(pod.containers);
    expect(pod.restartPolicy).toBe("Never");
    // It speaks NATS only: no token of any ServiceAccount.
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toEqual(service.securityContext);
    expect(container.securityContext).toEqual(only(service.containers).securityContext);
    expect(container.image).toBe(only(service.containers).image);
    expect(pod.imagePullSecrets).toEqual(service.imagePullSecrets);
    expect(container.args).toEqual([
      "observe",
      "--mode=service",
      "--filename=/etc/stagewatch/test/target.yaml",
      "--deployment=stagewatch-test",
      "--require=healthy",
      "--timeout=2m",
      "--subject-prefix=stagewatch",
      "--progress=plain",
    ]);
    expect(container.env).toEqual([
      { name: "NATS_URL", value: "tls://nats.messaging.svc:4222" },
      { name: "NATS_CREDS_FILE", value: "/etc/stagewatch/nats-credentials/platform.creds" },
      { name: "STAGEWATCH_VERIFY_KEY", valueFrom: { configMapKeyRef: { name: "stagewatch-verify-keys", key: "STAGEWATCH_VERIFY_KEY" } } },
      { name: "NATS_TLS_CA_FILE", value: "/etc/stagewatch/nats-tls/ca.crt" },
      { name: "NATS_TLS_CERT_FILE", value: "/etc/stagewatch/nats-client-tls/tls.crt" },
      { name: "NATS_TLS_KEY_FILE", value: "/etc/stagewatch/nats-client-tls/tls.key" },
    ]);
    // The tenant's Secret and the CA alone: nothing of the service's own credentials, key or tenants.
    expect(pod.volumes?.map((volume) => [volume.name, volume.secret?.secretName ?? volume.configMap?.name, (volume.secret ?? volume.configMap)?.items?.map((item) => item.key)])).toEqual([
      ["target", "stagewatch-test", undefined],
      ["nats-credentials", "platform-nats-creds", ["platform.creds"]],
      ["nats-tls", "stagewatch-nats-tls", ["ca.crt"]],
      ["nats-client-tls", "platform-nats-tls", ["tls.crt", "tls.key"]],
    ]);
    expect(container.volumeMounts?.every((mount) => mount.readOnly === true)).toBe(true);
  });

  it("is no pod of the service's, and has a NetworkPolicy of its own: nothing in, DNS and NATS out", () => {
    const objects = renderChart({ releaseName: "stagewatch", namespace: "platform", valuesFiles: [namespacedValues] });
    const labels = testPod(objects).metadata?.labels;
    // The service's selector (its Service, PodDisruptionBudget and NetworkPolicy) does not pick it.
    expect(matches(deploymentOf(objects).spec?.selector.matchLabels, labels)).toBe(false);
    const policies = byKind<KubernetesObject & { spec: { podSelector: { matchLabels: Record<string, string> }; ingress: unknown[]; egress: { to: unknown[]; ports: unknown[] }[] } }>(objects, "NetworkPolicy");
    expect(policies.map((policy) => [policy.metadata?.name, matches(policy.spec.podSelector.matchLabels, labels)])).toEqual([
      ["stagewatch", false],
      ["stagewatch-test", true],
    ]);
    const own = policies[1]!.spec;
    expect(own.ingress).toEqual([]);
    expect(own.egress.map((rule) => rule.to)).toEqual([
      [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } }, podSelector: { matchLabels: { "k8s-app": "kube-dns" } } }],
      [{ namespaceSelector: {}, podSelector: { matchLabels: { "app.kubernetes.io/name": "nats" } } }],
    ]);
    expect(own.egress[1]?.ports).toEqual([{ port: 4222, protocol: "TCP" }]);
    // The operator's target, in a watched namespace; the test's own token.
    const target = only(byKind<KubernetesObject & { data: Record<string, string> }>(testHooks(objects), "ConfigMap"));
    expect(target.data["target.yaml"]).toContain("  name: api\n  namespace: team-a\n");
    expect(only(testPod(objects).spec!.containers).env).toContainEqual({ name: "NATS_TOKEN_FILE", value: "/etc/stagewatch/nats-credentials/token" });
    expect(byKind(renderChart({ valuesFiles: [namespacedValues], set: { "networkPolicy.enabled": false }, showOnly: testHook }), "NetworkPolicy")).toEqual([]);
  });

  const signed = { "signing.existingSecret": "stagewatch-signing", "signing.publicKeys": ["NDV56JXZSGQDWYYKNHNPJGOMJASLD6YH5OCFXJEMM3CT4GRVZ3VYGRTQ"] };
  it.each([
    {
      name: "without a signing key: it trusts only signed verdicts",
      values: { set: { "test.enabled": true, "test.nats.auth.existingSecret": "team-a-nats" } },
      message: "test.enabled: the test trusts only a verdict signed by a key of signing.publicKeys",
    },
    {
      name: "without a tenant's credentials",
      values: { set: { ...signed, "test.enabled": true } },
      message: "test.nats.auth.existingSecret: name the existing Secret that holds a tenant's NATS credentials for the test",
    },
    {
      name: "with the service's own credentials",
      values: { valuesFiles: [tlsValues], set: { "test.nats.auth.existingSecret": "stagewatch-nats-creds" } },
      message: "test.nats.auth.existingSecret: stagewatch-nats-creds holds the service's own NATS credentials",
    },
    {
      name: "without credentials where NATS wants them",
      values: { valuesFiles: [tlsValues], set: { "test.nats.auth.type": "none" } },
      message: "test.nats.auth.type is none, but the service's NATS wants credentials (nats.auth.type is credsFile)",
    },
    {
      name: "on the release's Deployment where the service does not watch the release namespace",
      values: { valuesFiles: [namespacedValues], set: { "test.target.name": "" } },
      message: "test.target: Deployment stagewatch is in the namespace stagewatch, which the service does not watch (namespaces: team-a, team-b)",
    },
    { name: "a stage observe cannot require without more flags", values: { valuesFiles: [tlsValues], set: { "test.require": "verified" } }, message: "at '/test/require': value must be one of" },
  ])("refused $name", ({ values, message }) => {
    const result = templateChart(values);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });
});

describe("rendered manifests on the real API server (server-side apply, dryRun=All)", () => {
  const namespaces: string[] = [];

  beforeAll(async () => {
    // Minimal stand-in for prometheus-operator's CRD, so the ServiceMonitor has somewhere to go.
    await installKind("monitoring.coreos.com", "ServiceMonitor", "servicemonitors");
  });

  afterAll(async () => {
    await Promise.all(namespaces.map((name) => deleteNamespace(name)));
  });

  it.each(valueSets)("accepts every object rendered with $name", async ({ values }) => {
    const release = await createNamespace("helm-dry-run");
    namespaces.push(release);
    const set: Record<string, unknown> = { ...values.set };
    if (values.valuesFiles?.includes(namespacedValues)) {
      // The Roles go into the watched namespaces, which must exist.
      const watched = [await createNamespace("helm-team-a"), await createNamespace("helm-team-b")];
      namespaces.push(...watched);
      set.namespaces = watched;
      set["test.target.namespace"] = watched[0];
    }
    const objects = renderChart({ ...values, set, releaseName: "stagewatch", namespace: release });
    const applied = await applyObjects(kubeConfig(), objects, { dryRun: true });
    expect(applied.map((object) => `${object.kind}/${object.metadata?.name}`)).toEqual(
      objects.map((object) => `${object.kind}/${object.metadata?.name}`),
    );
    // The server defaulted and validated the Deployment it would have stored.
    const deployment = applied.find((object): object is V1Deployment => object.kind === "Deployment");
    expect(deployment?.metadata?.uid).toBeDefined();
    expect(deployment?.spec?.template.spec?.containers[0]?.securityContext?.readOnlyRootFilesystem).toBe(true);
  });

  it("rejects a misspelt field, so acceptance above means something", async () => {
    const release = await createNamespace("helm-dry-run");
    namespaces.push(release);
    const objects = renderChart({ namespace: release });
    const deployment = deploymentOf(objects);
    const broken = { ...deployment, spec: { ...deployment.spec, replica: 2 } } as KubernetesObject;
    await expect(applyObjects(kubeConfig(), [broken], { dryRun: true })).rejects.toThrow(/replica/);
  });
});

import { describe, expect, it } from "vitest";
import type { Condition, KubeObject } from "../../kube/objects.js";
import { defaultFailOn } from "../schemas.js";
import { apiObject, condition, createdAt, namespace, uidOf } from "../../../test/fixtures/kube/meta.js";
import { evaluateResource, ruleFor, settleByConditions, type EvaluationInput } from "./index.js";
import type { ResourceReading } from "../reading.js";

function certificate(generation: number, status?: Record<string, unknown>): KubeObject {
  return apiObject({
    apiVersion: "cert-manager.io/v1",
    kind: "Certificate",
    metadata: { name: "api-tls", namespace, uid: uidOf("certificate/api-tls"), resourceVersion: "52011", generation, creationTimestamp: createdAt },
    spec: { secretName: "api-tls", dnsNames: ["api.payments.example.com"], issuerRef: { name: "letsencrypt", kind: "ClusterIssuer", group: "cert-manager.io" } },
    ...(status && { status }),
  });
}

function kustomization(generation: number, conditions: Condition[], observedGeneration = generation): KubeObject {
  return apiObject({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: { name: "payments-config", namespace, uid: uidOf("kustomization/payments-config"), resourceVersion: "53170", generation, creationTimestamp: createdAt, finalizers: ["finalizers.fluxcd.io"] },
    spec: { interval: "10m", path: "./deploy/payments", prune: true, sourceRef: { kind: "GitRepository", name: "platform" } },
    status: { observedGeneration, lastAttemptedRevision: "main@sha1:4f9c2b7e", conditions },
  });
}

const upToDate = "Certificate is up to date and has not expired";
const buildFailed = "kustomize build failed: accumulating resources: accumulation err='accumulating resources from 'deployment.yaml': open /tmp/kustomization-1204/deploy/payments/deployment.yaml: no such file or directory'";

function existing(apiVersion: string, kind: string, name: string, clusterScoped = false): KubeObject {
  return apiObject({
    apiVersion,
    kind,
    metadata: { name, ...(!clusterScoped && { namespace }), uid: uidOf(`${kind}/${name}`), resourceVersion: "47002", creationTimestamp: createdAt },
  });
}

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const genericCases: Case[] = [
  {
    name: "Ready=True after the generation was observed",
    input: { object: certificate(2, { notAfter: "2027-02-27T10:01:40Z", revision: 2, conditions: [{ ...condition("Ready", "True", "Ready", upToDate), observedGeneration: 2 }] }) },
    expected: { state: "settled", message: upToDate },
  },
  {
    name: "no status yet is pending, not settled",
    input: { object: certificate(1) },
    expected: { state: "pending", reason: "AwaitingStatus", message: "no status written yet" },
  },
  {
    name: "Ready=True written for an older generation (stale Ready)",
    input: { object: certificate(3, { conditions: [{ ...condition("Ready", "True", "Ready", upToDate), observedGeneration: 2 }] }) },
    expected: { state: "pending", reason: "GenerationNotObserved", message: "Ready describes generation 2, the object is at generation 3" },
  },
  {
    name: "Stalled=True fails",
    input: {
      object: kustomization(5, [condition("Ready", "False", "BuildFailed", buildFailed), condition("Stalled", "True", "BuildFailed", buildFailed)]),
    },
    expected: { state: "failed", reason: "BuildFailed", message: buildFailed },
  },
  {
    name: "Reconciling=True is pending, even next to an older Ready=True",
    input: {
      object: kustomization(5, [
        condition("Reconciling", "True", "ProgressingWithRetry", "Detecting drift for revision main@sha1:4f9c2b7e with a timeout of 9m30s"),
        condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: main@sha1:1d2e3f4a"),
      ]),
    },
    expected: { state: "pending", reason: "ProgressingWithRetry", message: "Detecting drift for revision main@sha1:4f9c2b7e with a timeout of 9m30s" },
  },
  {
    name: "Ready=False with a reason the request lists in failOn fails",
    input: {
      object: kustomization(5, [condition("Ready", "False", "HealthCheckFailed", "health check failed after 4m30s: timeout waiting for: [Deployment/payments/api status: 'InProgress']")]),
      failOn: new Set(["HealthCheckFailed"]),
    },
    expected: { state: "failed", reason: "HealthCheckFailed", message: "health check failed after 4m30s: timeout waiting for: [Deployment/payments/api status: 'InProgress']" },
  },
  {
    name: "Ready=False with another reason is pending",
    input: { object: kustomization(5, [condition("Ready", "False", "DependencyNotReady", "dependency 'flux-system/platform-crds' is not ready")]) },
    expected: { state: "pending", reason: "DependencyNotReady", message: "dependency 'flux-system/platform-crds' is not ready" },
  },
  {
    name: "status written with no conditions and no problem",
    input: { object: certificate(1, { observedGeneration: 1 }) },
    expected: { state: "settled", message: "status written, no conditions" },
  },
  {
    name: "status.observedGeneration behind metadata.generation",
    input: { object: kustomization(6, [condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: main@sha1:1d2e3f4a")], 5) },
    expected: { state: "pending", reason: "GenerationNotObserved", message: "generation 6 not yet observed by its controller (status is for 5)" },
  },
];

const existenceCases: Case[] = [
  { name: "ConfigMap exists", input: { object: existing("v1", "ConfigMap", "api-config") }, expected: { state: "settled", message: "exists" } },
  { name: "Secret exists (metadata only)", input: { object: existing("v1", "Secret", "payments-db") }, expected: { state: "settled", message: "exists" } },
  { name: "Service exists", input: { object: existing("v1", "Service", "api") }, expected: { state: "settled", message: "exists" } },
  {
    name: "ClusterRole exists",
    input: { object: existing("rbac.authorization.k8s.io/v1", "ClusterRole", "payments:reader", true) },
    expected: { state: "settled", message: "exists" },
  },
  {
    name: "a Namespace being deleted is pending",
    input: { object: apiObject({ ...existing("v1", "Namespace", "payments", true), metadata: { name: "payments", uid: uidOf("ns"), deletionTimestamp: "2026-11-29T10:05:00Z" } }) },
    expected: { state: "pending", reason: "Terminating", message: "being deleted since 2026-11-29T10:05:00Z" },
  },
];

describe("generic conditions rule (the fallback)", () => {
  it.each(genericCases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });

  it("reads every kind without a rule of its own", () => {
    expect(ruleFor("cert-manager.io/v1", "Certificate")).toBe(settleByConditions);
    expect(ruleFor("networking.k8s.io/v1", "ServiceCIDR")).toBe(settleByConditions);
  });
});

describe("existence-only kinds", () => {
  it.each(existenceCases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

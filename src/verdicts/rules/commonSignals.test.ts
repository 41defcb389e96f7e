// The fallback on kinds neither the health library nor a configured check knows: every common
// signal against an object keeps it from settling, and a settled reading says what it read.
import { describe, expect, it } from "vitest";
import type { Condition, KubeObject } from "../../kube/objects.js";
import { defaultFailOn } from "../contract/schemas.js";
import { apiObject, condition, createdAt, namespace, uidOf } from "../../../test/fixtures/kube/meta.js";
import { libraryEntryFor } from "../library/index.js";
import { evaluateResource, fallbackRule, ruleFor, type EvaluationInput } from "../evaluation/registry.js";
import { settleByCommonSignals } from "./index.js";
import type { ResourceReading } from "./reading.js";
import { groupKind } from "../contract/kinds.js";

function object(apiVersion: string, kind: string, generation: number, body: { spec?: Record<string, unknown>; status?: Record<string, unknown> | null }): KubeObject {
  return apiObject({
    apiVersion,
    kind,
    metadata: { name: "payments", namespace, uid: uidOf(`${kind}/payments`), resourceVersion: "52011", generation, creationTimestamp: createdAt },
    ...body,
  });
}

// Tekton writes Succeeded (Unknown while running); Velero a phase; Kubeflow a Ready condition;
// the others are made-up kinds with the shapes operators commonly write.
const pipelineRun = (conditions: Condition[]) => object("tekton.dev/v1", "PipelineRun", 1, { status: { conditions } });
const backup = (phase: string, extra: Record<string, unknown> = {}) => object("velero.io/v1", "Backup", 1, { status: { phase, ...extra } });
const notebook = (generation: number, status: Record<string, unknown> | null, spec: Record<string, unknown> = {}) => object("kubeflow.org/v1", "Notebook", generation, { spec, status });
const widget = (status: Record<string, unknown> | null, spec: Record<string, unknown> = {}) => object("widgets.example.com/v1", "Widget", 3, { spec, status });
const at = (generation: number, c: Condition): Condition => ({ ...c, observedGeneration: generation });

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const buildFailed = "kustomize build failed: accumulating resources: open deploy/payments/deployment.yaml: no such file or directory";

const cases: Case[] = [
  { name: "no status yet", input: { object: widget(null) }, expected: { state: "pending", reason: "AwaitingStatus", message: "no status written yet" } },
  { name: "status: {}", input: { object: widget({}) }, expected: { state: "pending", reason: "AwaitingStatus", message: "no status written yet" } },
  {
    name: "conditions: [] before the controller wrote any",
    input: { object: widget({ observedGeneration: 3, conditions: [] }) },
    expected: { state: "pending", reason: "AwaitingStatus", message: "no conditions written yet (conditions: [])" },
  },
  {
    name: "Ready=True at the current generation settles, naming the signal",
    input: { object: notebook(2, { conditions: [at(2, condition("Ready", "True", "Ready", "Notebook server is running"))] }) },
    expected: { state: "settled", message: "Ready=True: Notebook server is running" },
  },
  {
    name: "Ready=True written for an older generation (stale Ready)",
    input: { object: notebook(3, { conditions: [at(2, condition("Ready", "True", "Ready", "Notebook server is running"))] }) },
    expected: { state: "pending", reason: "GenerationNotObserved", message: "Ready describes generation 2, the object is at generation 3" },
  },
  {
    name: "Ready=True beside Synced=False does not settle (a Crossplane-like composite)",
    input: {
      object: widget({
        conditions: [condition("Ready", "True", "Available"), condition("Synced", "False", "ReconcileError", "cannot compose resources: cannot apply composed resource \"bucket\": quota exceeded")],
      }),
    },
    expected: { state: "pending", reason: "ReconcileError", message: "Synced: cannot compose resources: cannot apply composed resource \"bucket\": quota exceeded" },
  },
  {
    name: "a positive type Unknown is pending (Tekton's Succeeded while the run goes on)",
    input: { object: pipelineRun([condition("Succeeded", "Unknown", "Running", "Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2, Skipped: 0")]) },
    expected: { state: "pending", reason: "Running", message: "Succeeded: Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2, Skipped: 0" },
  },
  {
    name: "a positive type True with no Ready settles on it",
    input: { object: pipelineRun([condition("Succeeded", "True", "Succeeded", "All Tasks have completed executing")]) },
    expected: { state: "settled", message: "Succeeded=True: All Tasks have completed executing" },
  },
  {
    name: "a positive type False with a reason the request lists in failOn fails",
    input: { object: pipelineRun([condition("Succeeded", "False", "Failed", "Tasks Completed: 3 (Failed: 1, Cancelled 0)")]), failOn: new Set(["Failed"]) },
    expected: { state: "failed", reason: "Failed", message: "Succeeded: Tasks Completed: 3 (Failed: 1, Cancelled 0)" },
  },
  {
    name: "Stalled=True fails",
    input: { object: widget({ conditions: [condition("Ready", "False", "BuildFailed", buildFailed), condition("Stalled", "True", "BuildFailed", buildFailed)] }) },
    expected: { state: "failed", reason: "BuildFailed", message: `Stalled: ${buildFailed}` },
  },
  {
    name: "Failed=True fails",
    input: { object: widget({ conditions: [condition("Failed", "True", "ACK.Terminal", "InvalidParameterValue: the bucket name is not valid")] }) },
    expected: { state: "failed", reason: "ACK.Terminal", message: "Failed: InvalidParameterValue: the bucket name is not valid" },
  },
  {
    name: "Degraded=True is pending: it may clear",
    input: { object: widget({ conditions: [condition("Available", "True"), condition("Degraded", "True", "ReplicasUnavailable", "2 of 3 replicas are unavailable")] }) },
    expected: { state: "pending", reason: "ReplicasUnavailable", message: "Degraded: 2 of 3 replicas are unavailable" },
  },
  {
    name: "Reconciling=True is pending, even next to Ready=True",
    input: {
      object: widget({
        conditions: [condition("Reconciling", "True", "ProgressingWithRetry", "Detecting drift for revision main@sha1:4f9c2b7e"), condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: main@sha1:1d2e3f4a")],
      }),
    },
    expected: { state: "pending", reason: "ProgressingWithRetry", message: "Reconciling: Detecting drift for revision main@sha1:4f9c2b7e" },
  },
  {
    name: "Ready=False with another reason is pending with it",
    input: { object: notebook(1, { conditions: [condition("Ready", "False", "DependencyNotReady", "dependency 'platform-crds' is not ready")] }) },
    expected: { state: "pending", reason: "DependencyNotReady", message: "dependency 'platform-crds' is not ready" },
  },
  {
    name: "a dotted reason in failOn fails (ACK.Terminal)",
    input: { object: widget({ conditions: [condition("Ready", "False", "ACK.Terminal", "the resource cannot be created as specified")] }), failOn: new Set(["ACK.Terminal"]) },
    expected: { state: "failed", reason: "ACK.Terminal", message: "the resource cannot be created as specified" },
  },
  {
    name: "phase Failed fails, with status.message",
    input: { object: backup("Failed", { message: "backup storage location default is unavailable" }) },
    expected: { state: "failed", reason: "Failed", message: "phase Failed: backup storage location default is unavailable" },
  },
  { name: "phase InProgress is pending", input: { object: backup("InProgress") }, expected: { state: "pending", reason: "InProgress", message: "phase InProgress" } },
  { name: "phase Completed settles on it", input: { object: backup("Completed") }, expected: { state: "settled", message: "phase Completed" } },
  { name: "state provisioning (lowercase) is pending", input: { object: widget({ state: "provisioning" }) }, expected: { state: "pending", reason: "provisioning", message: "state provisioning" } },
  {
    name: "spec.paused is pending",
    input: { object: widget({ conditions: [condition("Ready", "True", "Ready", "serving")] }, { paused: true }) },
    expected: { state: "pending", reason: "Paused", message: "paused (spec.paused is true)" },
  },
  {
    name: "status with no readiness signal settles, saying so",
    input: { object: widget({ observedGeneration: 3, endpoints: ["10.0.0.7:8080"] }) },
    expected: { state: "settled", message: "no readiness signal (no conditions, phase or state); a health check for the kind would read it" },
  },
  {
    name: "conditions of other types only: settles, naming them",
    input: { object: widget({ conditions: [condition("ScalingActive", "True"), condition("ScalingLimited", "False")] }) },
    expected: { state: "settled", message: "no readiness signal (conditions ScalingActive, ScalingLimited); a health check for the kind would read it" },
  },
  {
    name: "status.observedGeneration behind metadata.generation (generic check)",
    input: { object: notebook(6, { observedGeneration: 5, conditions: [condition("Ready", "True")] }) },
    expected: { state: "pending", reason: "GenerationNotObserved", message: "generation 6 not yet observed by its controller (status is for 5); Ready=True" },
  },
];

describe("the fallback: common signals", () => {
  it("knows none of these kinds from the library", () => {
    const known = cases.map(({ input }) => groupKind(input.object.apiVersion, input.object.kind)).filter((key) => libraryEntryFor(key) !== undefined);
    expect(known).toEqual([]);
  });

  it.each(cases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });

  it("reads every kind without a rule or library entry", () => {
    expect(fallbackRule).toBe(settleByCommonSignals);
    expect(ruleFor("kubeflow.org/v1", "Notebook")).toBe(settleByCommonSignals);
    expect(ruleFor("networking.k8s.io/v1", "ServiceCIDR")).toBe(settleByCommonSignals);
  });
});

function existing(apiVersion: string, kind: string, name: string, clusterScoped = false): KubeObject {
  return apiObject({
    apiVersion,
    kind,
    metadata: { name, ...(!clusterScoped && { namespace }), uid: uidOf(`${kind}/${name}`), resourceVersion: "47002", creationTimestamp: createdAt },
  });
}

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

describe("existence-only kinds", () => {
  it.each(existenceCases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

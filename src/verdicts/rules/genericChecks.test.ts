// The generic checks against a lagging status.observedGeneration, on Kustomizations written as
// kustomize-controller v1.9 writes them: it moves observedGeneration only when Ready turns True
// (finalizeStatus), stamps every condition with the object's generation (fluxcd/pkg
// runtime/conditions), and keeps Reconciling=True (ProgressingWithRetry) beside a failed Ready.
import { describe, expect, it } from "vitest";
import type { Condition, KubeObject } from "../../kube/objects.js";
import { apiObject, createdAt, namespace, transitionAt, uidOf } from "../../../test/fixtures/kube/meta.js";
import { defaultFailOn } from "../contract/schemas.js";
import type { ResourceReading } from "./reading.js";
import { compileHealthChecks } from "../cel/celHealthChecks.js";
import { evaluateResource, type EvaluationInput } from "../evaluation/registry.js";

const at = (generation: number, type: string, status: Condition["status"], reason: string, message: string): Condition => ({
  type,
  status,
  reason,
  message,
  observedGeneration: generation,
  lastTransitionTime: transitionAt,
});

function kustomization(generation: number, status: Record<string, unknown>): KubeObject {
  return apiObject({
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    metadata: {
      name: "payments",
      namespace,
      uid: uidOf("Kustomization/payments"),
      resourceVersion: "52011",
      generation,
      creationTimestamp: createdAt,
      finalizers: ["finalizers.fluxcd.io"],
    },
    spec: {
      interval: "10m",
      path: "./deploy/payments",
      prune: true,
      wait: true,
      timeout: "4m30s",
      sourceRef: { kind: "GitRepository", name: "platform", namespace: "flux-system" },
    },
    status,
  });
}

const fetching = (revision: string) => `Fetching manifests for revision ${revision} with a timeout of 4m30s`;
const buildFailed =
  "kustomize build failed: accumulating resources: accumulation err='accumulating resources from 'deployment.yaml': open /tmp/kustomization-2514917341/deploy/payments/deployment.yaml: no such file or directory'";
const healthFailed = "timeout waiting for: [Deployment/payments/api status: 'InProgress']";
const applyFailed = 'Deployment/payments/api dry-run failed (Invalid): Deployment.apps "api" is invalid: spec.template.spec.containers[0].image: Required value';
const artifactFailed = "Source artifact not found, retrying in 30s";
const gateDisabled =
  "to use spec.decryption.serviceAccountName for decryption authentication please enable the ObjectLevelWorkloadIdentity feature gate in the controller";
const applied = "Applied revision: main@sha1:4f9c2b7e";

interface Case {
  name: string;
  object: KubeObject;
  input?: Partial<EvaluationInput>;
  expected: ResourceReading;
}

const cases: Case[] = [
  {
    name: "a first build that fails: BuildFailed at once, beside observedGeneration -1 and Reconciling=True",
    object: kustomization(1, {
      observedGeneration: -1,
      lastAttemptedRevision: "main@sha1:4f9c2b7e",
      conditions: [at(1, "Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:4f9c2b7e")), at(1, "Ready", "False", "BuildFailed", buildFailed)],
    }),
    expected: { state: "failed", reason: "BuildFailed", message: buildFailed },
  },
  {
    name: "a later build that fails: BuildFailed at once, beside the last good observedGeneration",
    object: kustomization(3, {
      observedGeneration: 2,
      lastAppliedRevision: "main@sha1:4f9c2b7e",
      lastAttemptedRevision: "main@sha1:9d1e0a35",
      conditions: [at(3, "Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:9d1e0a35")), at(3, "Ready", "False", "BuildFailed", buildFailed)],
    }),
    expected: { state: "failed", reason: "BuildFailed", message: buildFailed },
  },
  {
    name: "Stalled=True before observing (FeatureGateDisabled, observedGeneration -1 as Flux's own test expects): failed with its reason",
    object: kustomization(1, {
      observedGeneration: -1,
      conditions: [at(1, "Ready", "False", "FeatureGateDisabled", gateDisabled), at(1, "Stalled", "True", "FeatureGateDisabled", gateDisabled)],
    }),
    expected: { state: "failed", reason: "FeatureGateDisabled", message: `Stalled: ${gateDisabled}` },
  },
  {
    name: "BuildFailed written for the previous generation waits for this one, naming it",
    object: kustomization(3, {
      observedGeneration: 1,
      conditions: [at(2, "Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:9d1e0a35")), at(2, "Ready", "False", "BuildFailed", buildFailed)],
    }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 3 not yet observed by its controller (status is for 1); Ready=False BuildFailed (for generation 2): ${buildFailed}; Reconciling=True ProgressingWithRetry (for generation 2): ${fetching("main@sha1:9d1e0a35")}`,
    },
  },
  {
    name: "HealthCheckFailed is retried: it waits, and the reading names it",
    object: kustomization(2, {
      observedGeneration: 1,
      lastAppliedRevision: "main@sha1:9d1e0a35",
      conditions: [
        at(2, "Reconciling", "True", "ProgressingWithRetry", "Running health checks for revision main@sha1:9d1e0a35 with a timeout of 4m30s"),
        at(2, "Healthy", "False", "HealthCheckFailed", healthFailed),
        at(2, "Ready", "False", "HealthCheckFailed", healthFailed),
      ],
    }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 2 not yet observed by its controller (status is for 1); Ready=False HealthCheckFailed: ${healthFailed}; Reconciling=True ProgressingWithRetry: Running health checks for revision main@sha1:9d1e0a35 with a timeout of 4m30s; Healthy=False HealthCheckFailed: ${healthFailed}`,
    },
  },
  {
    name: "ReconciliationFailed (apply) is retried: it waits, and the reading names it",
    object: kustomization(1, {
      observedGeneration: -1,
      conditions: [at(1, "Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:4f9c2b7e")), at(1, "Ready", "False", "ReconciliationFailed", applyFailed)],
    }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 1 not yet observed by its controller (status is for -1); Ready=False ReconciliationFailed: ${applyFailed}; Reconciling=True ProgressingWithRetry: ${fetching("main@sha1:4f9c2b7e")}`,
    },
  },
  {
    name: "ArtifactFailed (the source has no artifact yet) waits, and the reading names it",
    object: kustomization(1, { observedGeneration: -1, conditions: [at(1, "Ready", "False", "ArtifactFailed", artifactFailed)] }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 1 not yet observed by its controller (status is for -1); Ready=False ArtifactFailed: ${artifactFailed}`,
    },
  },
  {
    name: "in progress before observing: waits with the conditions' words",
    object: kustomization(1, {
      observedGeneration: -1,
      conditions: [
        at(1, "Reconciling", "True", "Progressing", fetching("main@sha1:4f9c2b7e")),
        at(1, "Ready", "Unknown", "Progressing", "Reconciliation in progress"),
      ],
    }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 1 not yet observed by its controller (status is for -1); Ready=Unknown Progressing: Reconciliation in progress; Reconciling=True Progressing: ${fetching("main@sha1:4f9c2b7e")}`,
    },
  },
  {
    name: "no false success: Ready=True stamped with the generation while observedGeneration lags still waits",
    object: kustomization(2, { observedGeneration: 1, conditions: [at(2, "Ready", "True", "ReconciliationSucceeded", applied)] }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 2 not yet observed by its controller (status is for 1); Ready=True ReconciliationSucceeded: ${applied}`,
    },
  },
  {
    name: "no false success: Ready=True of the previous generation waits",
    object: kustomization(2, { observedGeneration: 1, conditions: [at(1, "Ready", "True", "ReconciliationSucceeded", applied)] }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 2 not yet observed by its controller (status is for 1); Ready=True ReconciliationSucceeded (for generation 1): ${applied}`,
    },
  },
  {
    name: "a Stalled=True without observedGeneration may be the previous spec's: it waits",
    object: kustomization(2, {
      observedGeneration: 1,
      conditions: [{ type: "Stalled", status: "True", reason: "InvalidPath", message: "kustomization path not found", lastTransitionTime: transitionAt }],
    }),
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: "generation 2 not yet observed by its controller (status is for 1); Stalled=True InvalidPath: kustomization path not found",
    },
  },
  {
    name: "a configured health check for the kind reads nothing before observedGeneration catches up",
    object: kustomization(1, {
      observedGeneration: -1,
      conditions: [at(1, "Reconciling", "True", "ProgressingWithRetry", fetching("main@sha1:4f9c2b7e")), at(1, "Ready", "False", "BuildFailed", buildFailed)],
    }),
    input: {
      healthChecks: compileHealthChecks([
        {
          apiVersion: "kustomize.toolkit.fluxcd.io/v1",
          kind: "Kustomization",
          current: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
          failed: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False')",
        },
      ]),
    },
    expected: {
      state: "pending",
      reason: "GenerationNotObserved",
      message: `generation 1 not yet observed by its controller (status is for -1); Ready=False BuildFailed: ${buildFailed}; Reconciling=True ProgressingWithRetry: ${fetching("main@sha1:4f9c2b7e")}`,
    },
  },
];

describe("a failure the controller reports before it observes the generation", () => {
  it.each(cases)("$name", ({ object, input, expected }) => {
    expect(evaluateResource({ object, failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });

  it("a kind whose controller is not known to lag reads no failure before observing", () => {
    const widget = apiObject<KubeObject>({
      apiVersion: "widgets.example.com/v1",
      kind: "Widget",
      metadata: { name: "payments", namespace, uid: uidOf("Widget/payments"), generation: 2, creationTimestamp: createdAt },
      status: { observedGeneration: 1, conditions: [at(2, "Stalled", "True", "InvalidSpec", "spec.size must be positive")] },
    });
    expect(evaluateResource({ object: widget, failOn: new Set(defaultFailOn) })).toEqual({
      state: "pending",
      reason: "GenerationNotObserved",
      message: "generation 2 not yet observed by its controller (status is for 1); Stalled=True InvalidSpec: spec.size must be positive",
    });
  });
});

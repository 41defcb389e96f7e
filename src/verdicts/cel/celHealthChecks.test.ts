import { describe, expect, it } from "vitest";
import type { Condition, KubeObject } from "../../kube/objects.js";
import { defaultFailOn } from "../contract/schemas.js";
import { apiObject, condition, createdAt, namespace, uidOf } from "../../../test/fixtures/kube/meta.js";
import { captured } from "../../../test/fixtures/kube/captured.js";
import { evaluateResource, type EvaluationInput } from "../evaluation/registry.js";
import { HealthCheckCompileError, HealthCheckConfig, compileHealthChecks } from "./celHealthChecks.js";
import type { ResourceReading } from "../rules/reading.js";

// cert-manager's Certificate reports Issuing before Ready. Flux's RFC-0009 example writes these with
// `filter(...).all(...)`, which holds on an empty list (no Issuing condition reads as issuing):
// `exists` says what is meant.
const certificateCheck = {
  apiVersion: "cert-manager.io/v1",
  kind: "Certificate",
  inProgress: "status.conditions.exists(e, e.type == 'Issuing' && e.observedGeneration == metadata.generation && e.status == 'True')",
  failed: "status.conditions.exists(e, e.type == 'Ready' && e.observedGeneration == metadata.generation && e.status == 'False')",
  current: "status.conditions.exists(e, e.type == 'Ready' && e.observedGeneration == metadata.generation && e.status == 'True')",
};
// The captured Gadget's operator writes nested status only.
const gadgetCheck = {
  apiVersion: "capture.stagewatch.io/v1",
  kind: "Gadget",
  current: "status.health.status == 'Healthy'",
  failed: "status.health.status == 'Broken'",
};
const healthChecks = compileHealthChecks([certificateCheck, gadgetCheck]);

function certificate(conditions: Condition[] | undefined, generation = 2): KubeObject {
  return apiObject({
    apiVersion: "cert-manager.io/v1",
    kind: "Certificate",
    metadata: { name: "api-tls", namespace, uid: uidOf("certificate/api-tls"), resourceVersion: "52011", generation, creationTimestamp: createdAt },
    spec: { secretName: "api-tls", dnsNames: ["api.payments.example.com"], issuerRef: { name: "letsencrypt", kind: "ClusterIssuer" } },
    ...(conditions && { status: { observedGeneration: generation, conditions } }),
  });
}
const at2 = (c: Condition): Condition => ({ ...c, observedGeneration: 2 });
const issuing = at2(condition("Issuing", "True", "Issuing", "Issuing certificate as Secret does not exist"));
const notReady = at2(condition("Ready", "False", "DoesNotExist", "Issuing certificate as Secret does not exist"));
const ready = at2(condition("Ready", "True", "Ready", "Certificate is up to date and has not expired"));

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const cases: Case[] = [
  {
    name: "Certificate: Ready, not issuing: settled in the object's words",
    input: { object: certificate([ready]) },
    expected: { state: "settled", message: "Ready=True: Certificate is up to date and has not expired" },
  },
  {
    name: "Certificate: issuing wins over Ready=False (inProgress is evaluated first), with Ready's reason and message",
    input: { object: certificate([issuing, notReady]) },
    expected: { state: "pending", reason: "DoesNotExist", message: "Issuing certificate as Secret does not exist" },
  },
  {
    name: "Certificate: Ready=False, not issuing, fails with the condition's reason and message",
    input: { object: certificate([notReady]) },
    expected: { state: "failed", reason: "DoesNotExist", message: "Issuing certificate as Secret does not exist" },
  },
  {
    name: "Certificate: no status yet is awaiting its status, not an expression error",
    input: { object: certificate(undefined) },
    expected: { state: "pending", reason: "AwaitingStatus", message: "no status written yet" },
  },
  {
    name: "Certificate: the generic checks run first (generation not observed)",
    input: { object: { ...certificate([ready]), status: { observedGeneration: 1, conditions: [ready] } } },
    expected: { state: "pending", reason: "GenerationNotObserved", message: "generation 2 not yet observed by its controller (status is for 1); Ready=True Ready: Certificate is up to date and has not expired" },
  },
  {
    name: "captured Gadget with nested status: current holds",
    input: { object: captured("cr-nested-status") },
    expected: { state: "settled", message: `current holds: ${gadgetCheck.current}` },
  },
  {
    name: "captured Gadget without status: awaiting its status",
    input: { object: captured("cr-no-status") },
    expected: { state: "pending", reason: "AwaitingStatus", message: "no status written yet" },
  },
  {
    name: "a status written without the field an expression reads: pending, the field named",
    input: { object: { ...captured("cr-nested-status"), status: { nodes: [] } } },
    expected: { state: "pending", reason: "HealthCheckError", message: `failed expression ${gadgetCheck.failed}: field not found: health` },
  },
  {
    name: "Gadget failed with a status.message: the object's words, not the expression",
    input: { object: { ...captured("cr-nested-status"), status: { health: { status: "Broken" }, message: "quota for gadgets exhausted" } } },
    expected: { state: "failed", reason: "HealthCheckFailed", message: "quota for gadgets exhausted" },
  },
  {
    name: "Gadget reported Broken: failed",
    input: { object: { ...captured("cr-nested-status"), status: { health: { status: "Broken" } } } },
    expected: { state: "failed", reason: "HealthCheckFailed", message: `failed holds: ${gadgetCheck.failed}` },
  },
  {
    name: "Gadget neither healthy nor broken: pending until current holds",
    input: { object: { ...captured("cr-nested-status"), status: { health: { status: "Degraded" } } } },
    expected: { state: "pending", reason: "HealthCheckInProgress", message: `waiting for current: ${gadgetCheck.current}` },
  },
  {
    name: "a kind without a health check keeps the fallback",
    input: { object: { ...captured("cr-nested-status"), kind: "Widget" } },
    expected: { state: "settled", message: "no readiness signal (no conditions, phase or state); a health check for the kind would read it" },
  },
];

describe("CEL health checks", () => {
  it.each(cases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), healthChecks, ...input })).toEqual(expected);
  });

  it("an expression that does not return a bool is pending, with what it returned", () => {
    const rules = compileHealthChecks([{ ...gadgetCheck, failed: undefined, current: "status.health.status" }]);
    expect(evaluateResource({ object: captured("cr-nested-status"), failOn: new Set(), healthChecks: rules })).toEqual({
      state: "pending",
      reason: "HealthCheckError",
      message: "current expression status.health.status: returned string, not a bool",
    });
  });
});

describe("a health check's own reason and message expressions", () => {
  const check = {
    ...gadgetCheck,
    reason: "has(status.health.reason) ? status.health.reason : ''",
    message: "has(status.health.detail) ? 'health: ' + status.health.detail : ''",
  };
  const rules = compileHealthChecks([check]);
  const read = (status: Record<string, unknown>) => evaluateResource({ object: { ...captured("cr-nested-status"), status }, failOn: new Set(), healthChecks: rules });

  it("say the reading's reason and words", () => {
    expect(read({ health: { status: "Broken", reason: "DiskFull", detail: "volume data-0 is full" } })).toEqual({ state: "failed", reason: "DiskFull", message: "health: volume data-0 is full" });
  });

  it("an empty string leaves the defaults", () => {
    expect(read({ health: { status: "Broken" } })).toEqual({ state: "failed", reason: "HealthCheckFailed", message: `failed holds: ${check.failed}` });
  });
});

describe("compiling health checks", () => {
  it("a syntax error is a start-up error naming the kind and the expression", () => {
    const broken = { ...gadgetCheck, current: "status.health.status == " };
    expect(() => compileHealthChecks([broken])).toThrow(HealthCheckCompileError);
    expect(() => compileHealthChecks([broken])).toThrow(/^health check for capture\.stagewatch\.io\/Gadget: current expression "status\.health\.status == " does not compile: /);
  });

  it("a function CEL does not have is a start-up error", () => {
    expect(() => compileHealthChecks([{ ...gadgetCheck, failed: "isBroken(status)" }])).toThrow(
      'health check for capture.stagewatch.io/Gadget: failed expression "isBroken(status)" does not compile: unbound function: isBroken',
    );
  });

  it("built-in kinds keep their rule, and a kind is configured once", () => {
    expect(() => compileHealthChecks([{ apiVersion: "apps/v1", kind: "Deployment", current: "true" }])).toThrow(/built-in kinds keep their own rule/);
    expect(() => compileHealthChecks([gadgetCheck, gadgetCheck])).toThrow(/given twice/);
  });

  it("the configuration is strict about its fields", () => {
    const parsed = HealthCheckConfig.safeParse({ healthChecks: [{ ...gadgetCheck, curent: "true" }] });
    expect(parsed.success).toBe(false);
    expect(HealthCheckConfig.safeParse({ healthChecks: [{ apiVersion: "x/v1", kind: "X", current: " " }] }).success).toBe(false);
  });
});

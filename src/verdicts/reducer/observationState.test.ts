import { describe, expect, it } from "vitest";
import { observationRequest, startedAtMs } from "../../../test/fixtures/observation.js";
import { isBootstrapJob } from "./bootstrap.js";
import { groupKind, identityKey, objectIdentityKey } from "../contract/kinds.js";
import { resolveNamespaces, startObservation } from "./observationState.js";

describe("identity keys", () => {
  it.each([
    [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" }, "apps/Deployment/payments/api"],
    [{ apiVersion: "v1", kind: "Pod", namespace: "payments", name: "debug" }, "core/Pod/payments/debug"],
    [{ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "payments:reader" }, "rbac.authorization.k8s.io/ClusterRole/payments:reader"],
  ])("%o -> %s", (identity, key) => {
    expect(identityKey(identity)).toBe(key);
  });

  it("ignores the version: apps/v1 and a later apps version name one object", () => {
    expect(groupKind("apps/v1", "Deployment")).toBe(groupKind("apps/v2", "Deployment"));
    expect(objectIdentityKey({ apiVersion: "batch/v1", kind: "Job", metadata: { namespace: "payments", name: "schema-migrate" } })).toBe("batch/Job/payments/schema-migrate");
  });
});

describe("resolveNamespaces", () => {
  it("gives namespaced kinds the defaultNamespace and takes it off cluster-scoped ones", () => {
    const request = observationRequest({
      resources: [
        { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
        { apiVersion: "v1", kind: "ConfigMap", namespace: "shared", name: "ca-bundle" },
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", namespace: "payments", name: "payments:reader" },
        { apiVersion: "v1", kind: "Namespace", name: "payments" },
      ],
    });
    expect(resolveNamespaces(request)).toEqual({
      ok: true,
      value: [
        { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" },
        { apiVersion: "v1", kind: "ConfigMap", namespace: "shared", name: "ca-bundle" },
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "payments:reader" },
        { apiVersion: "v1", kind: "Namespace", name: "payments" },
      ],
    });
  });

  it("rejects a namespaced kind with neither a namespace nor a defaultNamespace, naming the field", () => {
    const request = observationRequest({
      defaultNamespace: undefined,
      resources: [
        { apiVersion: "v1", kind: "Namespace", name: "payments" },
        { apiVersion: "apps/v1", kind: "Deployment", name: "api" },
      ],
    });
    expect(resolveNamespaces(request)).toEqual({
      ok: false,
      issues: [{ path: "resources[1].namespace", message: "required: a namespaced Deployment needs a namespace or the request's defaultNamespace" }],
    });
  });

  it("asks discovery about custom kinds", () => {
    const request = observationRequest({ defaultNamespace: undefined, resources: [{ apiVersion: "cert-manager.io/v1", kind: "ClusterIssuer", name: "letsencrypt" }] });
    expect(resolveNamespaces(request).ok).toBe(false);
    expect(resolveNamespaces(request, (kind) => kind === "cert-manager.io/ClusterIssuer")).toEqual({
      ok: true,
      value: [{ apiVersion: "cert-manager.io/v1", kind: "ClusterIssuer", name: "letsencrypt" }],
    });
  });

  it("rejects one object declared twice (once through the defaultNamespace)", () => {
    const request = observationRequest({
      resources: [
        { apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" },
        { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 },
      ],
    });
    expect(resolveNamespaces(request)).toEqual({ ok: false, issues: [{ path: "resources[1]", message: "declares the same object as resources[0]" }] });
  });

  it("startObservation refuses what resolveNamespaces refuses", () => {
    const request = observationRequest({ defaultNamespace: undefined, resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api" }] });
    expect(startObservation({ observationId: "obs-1", request, startedAtMs, deadlineMs: startedAtMs + 300_000 }).ok).toBe(false);
  });
});

describe("isBootstrapJob", () => {
  const migrate = { apiVersion: "batch/v1", kind: "Job" } as const;
  it.each<{ name: string; identity: { apiVersion: string; kind: string; bootstrap?: boolean }; labels: Record<string, string> | undefined; expected: boolean }>([
    { name: "flagged in the request", identity: { ...migrate, bootstrap: true }, labels: undefined, expected: true },
    { name: "labelled on the Job", identity: migrate, labels: { "stagewatch.io/bootstrap": "true" }, expected: true },
    { name: "labelled with any value, even false", identity: migrate, labels: { "stagewatch.io/bootstrap": "false" }, expected: true },
    { name: "an ordinary Job", identity: migrate, labels: { "app.kubernetes.io/name": "smoke-test" }, expected: false },
    { name: "a Deployment carrying the label", identity: { apiVersion: "apps/v1", kind: "Deployment" }, labels: { "stagewatch.io/bootstrap": "true" }, expected: false },
  ])("$name", ({ identity, labels, expected }) => {
    expect(isBootstrapJob(identity, { metadata: { labels } })).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { groupKind, kindKey } from "./kinds.js";

// Requests and objects name a kind by apiVersion, discovery by group: both must give one key.
describe("kind keys", () => {
  it.each([
    { apiVersion: "v1", group: "", kind: "Pod", key: "core/Pod" },
    { apiVersion: "v1", group: "", kind: "ConfigMap", key: "core/ConfigMap" },
    { apiVersion: "apps/v1", group: "apps", kind: "Deployment", key: "apps/Deployment" },
    { apiVersion: "rbac.authorization.k8s.io/v1", group: "rbac.authorization.k8s.io", kind: "ClusterRole", key: "rbac.authorization.k8s.io/ClusterRole" },
    { apiVersion: "sandbox.example.com/v1alpha1", group: "sandbox.example.com", kind: "Pod", key: "sandbox.example.com/Pod" },
  ])("$apiVersion $kind is $key", ({ apiVersion, group, kind, key }) => {
    expect(groupKind(apiVersion, kind)).toBe(key);
    expect(kindKey(group, kind)).toBe(key);
  });
});

import { describe, expect, it } from "vitest";
import { ObservationRequest } from "../verdicts/contract/schemas.js";
import { observationRequest } from "../../test/fixtures/observation.js";
import { contentHash } from "./contentHash.js";

const request = observationRequest();

describe("contentHash", () => {
  const same: [string, unknown][] = [
    ["fields in another order", { ...Object.fromEntries(Object.entries(request).reverse()) }],
    ["resources in another order", { ...request, resources: [...request.resources].reverse() }],
    ["defaults written out", { ...request, failOn: ["InvalidImageName", "ImagePullBackOff"], absentGraceSeconds: 10 }],
    ["a reason at once written as a grace of 0", { ...request, failOn: ["InvalidImageName", { reason: "ImagePullBackOff", graceSeconds: 0 }] }],
    ["a retry under another span of the caller's trace", { ...request, traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "ci=2" }],
  ];
  it.each(same)("is the same for %s", (_, other) => {
    expect(contentHash(ObservationRequest.parse(other))).toBe(contentHash(request));
  });

  const different: [string, unknown][] = [
    ["another required stage", { ...request, require: "bootstrapped" }],
    ["another timeout", { ...request, timeoutSeconds: 600 }],
    ["another generation", { ...request, resources: [request.resources[0], { ...request.resources[1], generation: 8 }] }],
    ["one resource less", { ...request, resources: [request.resources[0]] }],
    ["a wider failOn", { ...request, failOn: ["ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff"] }],
    ["a grace on a reason", { ...request, failOn: ["ImagePullBackOff", { reason: "InvalidImageName", graceSeconds: 30 }] }],
  ];
  it.each(different)("differs for %s", (_, other) => {
    expect(contentHash(ObservationRequest.parse(other))).not.toBe(contentHash(request));
  });

  it("is a sha256 hex digest", () => {
    expect(contentHash(request)).toMatch(/^[0-9a-f]{64}$/);
  });
});

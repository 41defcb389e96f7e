// The bounds of the request fields that reach a NATS subject or a KV key (see the comment above
// DeploymentName in schemas.ts): each refusal names the field and says what it takes.
import { describe, expect, it } from "vitest";
import { observationRequest } from "../../../test/fixtures/observation.js";
import { CancelRequest, GetRequest, ObservationRequest } from "./schemas.js";
import { parseWith } from "./validation.js";

const request = observationRequest();
const issuesOf = (schema: Parameters<typeof parseWith>[0], body: unknown) => {
  const parsed = parseWith(schema, body);
  return parsed.ok ? [] : parsed.issues;
};

const idMessage = "1-64 letters, digits, '-' and '_' (an id stagewatch gave: it becomes a subject token and a KV key)";

describe("observationId of get and cancel", () => {
  it.each([
    ["a UUID, as stagewatch gives", "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b"],
    ["64 characters", "a".repeat(64)],
    ["letters, digits, '-' and '_'", "obs_7c2f-9A"],
  ])("accepts %s", (_what, observationId) => {
    expect(issuesOf(GetRequest, { observationId })).toEqual([]);
    expect(issuesOf(CancelRequest, { observationId, reason: "pipeline aborted" })).toEqual([]);
  });

  it.each([
    ["65 characters", "a".repeat(65)],
    ["5,000 characters", "a".repeat(5000)],
    ["empty", ""],
    ["a '.' (a subject's separator)", "no.such.id"],
    ["a wildcard", "obs-*"],
    ["a space", "obs 1"],
    ["a non-ASCII letter", "obs-é"],
  ])("refuses %s, naming the field", (_what, observationId) => {
    expect(issuesOf(GetRequest, { observationId })).toEqual([{ path: "observationId", message: idMessage }]);
    expect(issuesOf(CancelRequest, { observationId })).toEqual([{ path: "observationId", message: idMessage }]);
  });

  it("a missing id is required", () => {
    expect(issuesOf(GetRequest, {})).toEqual([{ path: "observationId", message: "required" }]);
  });
});

describe("key and deployment of observe", () => {
  it.each([
    ["256 characters", "k".repeat(256)],
    ["any printable text", "ci-4812/payments: retry #2 (é, 日本)"],
  ])("accepts a key of %s", (_what, key) => {
    expect(issuesOf(ObservationRequest, { ...request, key })).toEqual([]);
  });

  it.each([
    ["257 characters", "k".repeat(257), ["at most 256 characters"]],
    ["empty", "", ["required"]],
    ["a line break", "ci-4812\npayments", ["must not hold control characters"]],
    ["an escape sequence", "ci-\u001b[2J", ["must not hold control characters"]],
    ["a C1 control", "ci-\u009b", ["must not hold control characters"]],
  ])("refuses a key of %s", (_what, key, messages) => {
    expect(issuesOf(ObservationRequest, { ...request, key })).toEqual(messages.map((message) => ({ path: "key", message })));
  });

  it.each([
    ["64 characters", "d".repeat(64)],
    ["5,000 characters", "d".repeat(5000)],
    ["a '.'", "pay.ments"],
    ["upper case", "Payments"],
    ["empty", ""],
  ])("refuses a deployment of %s", (_what, deployment) => {
    expect(issuesOf(ObservationRequest, { ...request, deployment })).toEqual([
      { path: "deployment", message: "1-63 characters of a-z, 0-9 and '-' (it becomes a subject token and a metric label)" },
    ]);
  });
});

describe("verify of observe (require verified)", () => {
  const verified = { ...request, require: "verified", timeoutSeconds: 600 };

  it("takes a window shorter than the budget, with the default failOn", () => {
    const parsed = parseWith(ObservationRequest, { ...verified, verify: { windowSeconds: 300 } });
    expect(parsed.ok && parsed.value.verify).toEqual({ windowSeconds: 300, failOn: ["BackOff", "Unhealthy", "Evicted"], analyses: [] });
  });

  it.each([
    ["require verified without verify", { ...verified }, [{ path: "verify.windowSeconds", message: "required with require 'verified'" }]],
    ["verify without require verified", { ...request, verify: { windowSeconds: 60 } }, [{ path: "verify", message: "only with require 'verified'" }]],
    [
      "a window as long as the budget",
      { ...verified, verify: { windowSeconds: 600 } },
      [{ path: "verify.windowSeconds", message: "must be shorter than timeoutSeconds: the window counts inside the budget, after healthy" }],
    ],
    ["a misspelt field", { ...verified, verify: { window: 300 } }, [{ path: "verify.windowSeconds", message: "required" }, { path: "verify.window", message: "unknown field" }]],
  ])("refuses %s, naming the field", (_what, body, issues) => {
    expect(issuesOf(ObservationRequest, body)).toEqual(issues);
  });
});

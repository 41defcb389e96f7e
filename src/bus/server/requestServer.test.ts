import { describe, expect, it } from "vitest";
import { CancelRequest, ObservationRequest } from "../../verdicts/contract/schemas.js";
import { decodeBody } from "./requestServer.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const valid = {
  key: "ci-4812/payments",
  deployment: "payments",
  require: "healthy",
  timeoutSeconds: 300,
  resources: [{ apiVersion: "apps/v1", kind: "Deployment", namespace: "payments", name: "api" }],
};

describe("decodeBody", () => {
  it("returns the parsed request with defaults applied (failOn left to the service: serve --fail-on)", () => {
    const decoded = decodeBody(bytes(JSON.stringify(valid)), ObservationRequest, "observation request", 1024);
    expect(decoded).toEqual({ ok: true, value: { ...valid, absentGraceSeconds: 10, stallSeconds: 120 } });
  });

  const refused: [string, string, { code: string; paths: string[] }][] = [
    ["a body over the limit, before reading it", JSON.stringify({ ...valid, key: "k".repeat(2000) }), { code: "too_large", paths: ["(body)"] }],
    ["malformed JSON", '{"key": ', { code: "invalid_request", paths: ["(body)"] }],
    ["a JSON array", "[]", { code: "invalid_request", paths: ["(body)"] }],
    ["an empty body", "", { code: "invalid_request", paths: ["(body)"] }],
    ["a number where a count belongs", JSON.stringify({ ...valid, timeoutSeconds: "300" }), { code: "invalid_request", paths: ["timeoutSeconds"] }],
    ["a misspelt field", JSON.stringify({ ...valid, timeoutSecond: 300 }), { code: "invalid_request", paths: ["timeoutSecond"] }],
    ["no resources", JSON.stringify({ ...valid, resources: [] }), { code: "invalid_request", paths: ["resources"] }],
    ["a resource without a name", JSON.stringify({ ...valid, resources: [{ apiVersion: "v1", kind: "Secret" }] }), { code: "invalid_request", paths: ["resources[0].name"] }],
  ];
  it.each(refused)("refuses %s", (_, body, expected) => {
    const decoded = decodeBody(bytes(body), ObservationRequest, "observation request", 2048);
    expect(decoded.ok).toBe(false);
    if (decoded.ok) return;
    expect(decoded.reply.error.code).toBe(expected.code);
    expect(decoded.reply.error.issues.map((i) => i.path)).toEqual(expected.paths);
  });

  it("names the issues in the message too, for people reading a log", () => {
    const decoded = decodeBody(bytes(JSON.stringify({ reason: "x" })), CancelRequest, "cancel request", 1024);
    expect(decoded).toEqual({
      ok: false,
      reply: {
        ok: false,
        error: { code: "invalid_request", message: "invalid cancel request: observationId: required", issues: [{ path: "observationId", message: "required" }] },
      },
    });
  });

  it("refuses bytes that are not UTF-8 rather than reading replacement characters", () => {
    const decoded = decodeBody(new Uint8Array([0x22, 0xc3, 0x28, 0x22]), CancelRequest, "cancel request", 1024);
    expect(decoded.ok).toBe(false);
  });
});

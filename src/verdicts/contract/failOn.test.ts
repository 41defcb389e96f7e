import { describe, expect, it } from "vitest";
import { failOnPolicy, failOnText, loosenedIssues } from "./failOn.js";
import { parseWith } from "./validation.js";
import { ObservationRequest } from "./schemas.js";
import { specExampleRequest } from "../../../test/fixtures/observation.js";

describe("failOn entries", () => {
  it("a plain reason is at once; a graced one carries its grace in ms; FailedScheduling and Unschedulable are one fact", () => {
    expect(failOnPolicy(["ImagePullBackOff", { reason: "CrashLoopBackOff", graceSeconds: 120 }, { reason: "FailedScheduling", graceSeconds: 20 }])).toEqual(
      new Map([
        ["ImagePullBackOff", 0],
        ["CrashLoopBackOff", 120_000],
        ["FailedScheduling", 20_000],
        ["Unschedulable", 20_000],
      ]),
    );
  });

  it("the pod's word named first keeps its own grace", () => {
    expect(failOnPolicy([{ reason: "Unschedulable", graceSeconds: 5 }, { reason: "FailedScheduling", graceSeconds: 60 }]).get("Unschedulable")).toBe(5_000);
  });

  it("are written as the command line takes them", () => {
    expect(["ImagePullBackOff", { reason: "CrashLoopBackOff", graceSeconds: 120 }, { reason: "FailedMount", graceSeconds: 0 }].map(failOnText)).toEqual([
      "ImagePullBackOff",
      "CrashLoopBackOff:2m0s",
      "FailedMount",
    ]);
  });

  it.each([
    ["a reason named twice", ["CrashLoopBackOff", { reason: "CrashLoopBackOff", graceSeconds: 60 }], "failOn[1]", "names CrashLoopBackOff again, as failOn[0] does: one grace a reason"],
    ["a negative grace", [{ reason: "CrashLoopBackOff", graceSeconds: -1 }], "failOn[0].graceSeconds", "must be 0 (at once) or more"],
    ["a grace in minutes", [{ reason: "CrashLoopBackOff", graceSeconds: "2m" }], "failOn[0]", "must be a reason ('ImagePullBackOff') or {reason, graceSeconds}"],
    ["an unknown field", [{ reason: "CrashLoopBackOff", graceSeconds: 60, restarts: 3 }], "failOn[0].restarts", "unknown field"],
    ["a reason with a space", ["Image Pull"], "failOn[0]", "must be a reason as controllers write it"],
  ])("the request schema refuses %s, naming the entry", (_name, failOn, path, message) => {
    const parsed = parseWith(ObservationRequest, { ...specExampleRequest, failOn });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.issues).toContainEqual({ path, message: expect.stringContaining(message) });
  });
});

describe("loosenedIssues", () => {
  const service = ["ImagePullBackOff", { reason: "CrashLoopBackOff", graceSeconds: 120 }];

  it("lets a request tighten: the same reasons, shorter graces, more reasons", () => {
    expect(loosenedIssues(["InvalidImageName", { reason: "ImagePullBackOff", graceSeconds: 0 }, "CrashLoopBackOff"], service)).toEqual([]);
    expect(loosenedIssues(["ImagePullBackOff", { reason: "CrashLoopBackOff", graceSeconds: 120 }], service)).toEqual([]);
  });

  it("names a reason left out and a grace lengthened", () => {
    expect(loosenedIssues([{ reason: "ImagePullBackOff", graceSeconds: 30 }], service).map((issue) => issue.path)).toEqual(["failOn[0].graceSeconds", "failOn"]);
  });
});

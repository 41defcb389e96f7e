import { describe, expect, it } from "vitest";
import { parseFailOnFlag } from "./failOnFlag.js";
import { UsageError } from "../io/usage.js";

describe("--fail-on", () => {
  it.each([
    ["plain reasons, terminal at once", "ImagePullBackOff,InvalidImageName", ["ImagePullBackOff", "InvalidImageName"]],
    ["a grace after the last ':'", "CrashLoopBackOff:2m, FailedCreate:60s,ImagePullBackOff", [{ reason: "CrashLoopBackOff", graceSeconds: 120 }, { reason: "FailedCreate", graceSeconds: 60 }, "ImagePullBackOff"]],
    ["a reason holding a ':' of its own", "ACK.Terminal:Conflict,Kyverno:Blocked:1m30s", ["ACK.Terminal:Conflict", { reason: "Kyverno:Blocked", graceSeconds: 90 }]],
    ["0 is at once", "FailedMount:0", [{ reason: "FailedMount", graceSeconds: 0 }]],
    ["a fraction of a second rounds up", "FailedMount:1500ms", [{ reason: "FailedMount", graceSeconds: 2 }]],
  ])("%s", (_name, text, expected) => {
    expect(parseFailOnFlag("--fail-on", text)).toEqual(expected);
  });

  it.each([
    ["a grace that is no duration", "CrashLoopBackOff:2x", "--fail-on: 'CrashLoopBackOff:2x': '2x' is not a duration (e.g. 300, 90s, 5m, 1h30m)"],
    ["a grace past a day", "CrashLoopBackOff:25h", "--fail-on: 'CrashLoopBackOff:25h': at most 24 hours"],
    ["a reason with a space", "Image Pull", "--fail-on: 'Image Pull'"],
  ])("refuses %s, naming the flag and the item", (_name, text, message) => {
    expect(() => parseFailOnFlag("--fail-on", text)).toThrow(UsageError);
    expect(() => parseFailOnFlag("--fail-on", text)).toThrow(message);
  });
});

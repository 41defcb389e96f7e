import { describe, expect, it } from "vitest";
import type { Failure } from "../../verdicts/contract/schemas.js";
import { failureLogText } from "./failureLogText.js";

const failure: Failure = {
  stage: "bootstrapped",
  resource: { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate" },
  reason: "BackoffLimitExceeded",
  message: "Job has reached the specified backoff limit",
};
const tail = { pod: "schema-migrate-66khh", container: "migrate", init: false, previous: false, lines: ["applying 0042", "password=[redacted]"], truncated: false };

describe("failureLogText", () => {
  it("prints the tail under a header naming pod and container", () => {
    expect(failureLogText({ ...failure, logTail: tail })).toBe(
      "log of pod schema-migrate-66khh container migrate, 2 lines:\n    applying 0042\n    password=[redacted]\n",
    );
  });

  it("says when older lines were cut and when it is a previous instance of an init container", () => {
    expect(failureLogText({ ...failure, logTail: { ...tail, init: true, previous: true, truncated: true, lines: ["boom"] } })).toBe(
      "log of pod schema-migrate-66khh init container migrate (previous instance), last 1 line:\n    boom\n",
    );
  });

  it("prints the note when there is no tail, nothing when neither was asked for", () => {
    expect(failureLogText({ ...failure, logNote: "log of pod p container c not read: Forbidden: no" })).toBe("log of pod p container c not read: Forbidden: no\n");
    expect(failureLogText(failure)).toBe("");
    expect(failureLogText(undefined)).toBe("");
  });
});

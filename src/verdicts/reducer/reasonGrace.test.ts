// The grace decision alone: where a clock starts when the cluster gives no time of its own (a
// Warning event, a condition without lastTransitionTime), and when it carries over.
import { describe, expect, it } from "vitest";
import { failOnPolicy } from "../contract/failOn.js";
import { failed, pending } from "../rules/reading.js";
import { readingAtGraceEnd, withGrace } from "./reasonGrace.js";

const graces = failOnPolicy([{ reason: "FailedMount", graceSeconds: 60 }, "ImagePullBackOff"]);
const mountFailing = (pod: string, lastSeenMs: number) =>
  failed("FailedMount", "0/1 replicas ready, 1 updated", { about: `Pod ${pod}`, lastSeenMs });

describe("withGrace", () => {
  it("passes readings that are not failures by a graced reason unchanged", () => {
    const atOnce = failed("ImagePullBackOff", "pod api-x2 container api: ImagePullBackOff", { about: "Pod api-x2" });
    const waiting = pending("ContainerCreating", "0/1 replicas ready");
    expect(withGrace(atOnce, undefined, graces, 0)).toEqual({ reading: atOnce });
    expect(withGrace(waiting, undefined, graces, 0)).toEqual({ reading: waiting });
  });

  it("starts the clock at first sight, carries it while the same reason holds on the same object, and starts anew on another", () => {
    const first = withGrace(mountFailing("api-x2", 1_000), undefined, graces, 1_000);
    expect(first.clock).toMatchObject({ sinceMs: 1_000, endMs: 61_000 });
    const again = withGrace(mountFailing("api-x2", 20_000), first.clock, graces, 20_000);
    expect(again.clock).toMatchObject({ sinceMs: 1_000, endMs: 61_000 });
    expect(again.reading.message).toBe("FailedMount for 19s of 1m0s; 0/1 replicas ready, 1 updated");
    const other = withGrace(mountFailing("api-q7", 25_000), again.clock, graces, 25_000);
    expect(other.clock).toMatchObject({ sinceMs: 25_000, endMs: 85_000 });
  });

  it("fails at once a reading that arrives after its clock's end", () => {
    const first = withGrace(mountFailing("api-x2", 1_000), undefined, graces, 1_000);
    expect(withGrace(mountFailing("api-x2", 60_000), first.clock, graces, 61_500).reading).toMatchObject({ state: "failed", reason: "FailedMount" });
  });
});

describe("readingAtGraceEnd", () => {
  it("fails a warning that repeated since its clock started, and leaves pending one that did not", () => {
    const repeated = withGrace(mountFailing("api-x2", 30_000), withGrace(mountFailing("api-x2", 1_000), undefined, graces, 1_000).clock, graces, 30_000).clock!;
    expect(readingAtGraceEnd(repeated)).toMatchObject({ state: "failed", message: "FailedMount held for 1m0s, its grace; 0/1 replicas ready, 1 updated" });
    const once = withGrace(mountFailing("api-x2", 1_000), undefined, graces, 1_000).clock!;
    expect(readingAtGraceEnd(once)).toMatchObject({ state: "pending", message: "FailedMount not repeated for 1m0s; 0/1 replicas ready, 1 updated" });
  });
});

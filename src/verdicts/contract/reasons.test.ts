// Reasons as verdicts carry them (reasons.ts), on objects as the cluster writes them: a custom
// resource whose controller (or anyone who may write its status) put a megabyte, escape sequences
// or a password in a condition's reason, a pod whose waiting reason carries a credential, a Job
// condition and a Warning event with a reason that is no word. Each reading must come out bounded,
// scrubbed, free of control characters, its reason a reason word or `UnreadableReason`, and the
// reasons real clusters write must still match failOn.
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../kube/objects.js";
import type { ClusterWarning } from "../../kube/warnings.js";
import { apiObject, condition, createdAt, namespace, transitionAt, uidOf } from "../../../test/fixtures/kube/meta.js";
import { pod, running, waiting } from "../../../test/fixtures/kube/pods.js";
import { job } from "../../../test/fixtures/kube/workloads.js";
import { failingContainer } from "../evidence/failingContainer.js";
import { maxMessageLength, pending, shownMessage, type ResourceReading } from "../rules/reading.js";
import { isReasonShaped, shownReason, unreadableReason } from "./reasons.js";
import { evaluateResource } from "../evaluation/registry.js";
import { defaultFailOn } from "./schemas.js";
import { FailOnReason } from "./failOn.js";
import { withWarning } from "../rules/warnings.js";

const defaults = new Set<string>(defaultFailOn);

/** A custom resource no health check knows (the fallback reads it), with the full status its controller writes. */
function widget(conditions: ReturnType<typeof condition>[]): KubeObject {
  return apiObject({
    apiVersion: "widgets.example.com/v1",
    kind: "Widget",
    metadata: { name: "payments", namespace, uid: uidOf("Widget/payments"), resourceVersion: "61842", generation: 2, creationTimestamp: createdAt },
    spec: { replicas: 2, image: "ghcr.io/acme/widget:2.0" },
    status: { observedGeneration: 2, endpoints: ["10.244.1.7:8080"], conditions: conditions.map((c) => ({ ...c, observedGeneration: 2 })) },
  });
}

/** A Crossplane managed resource, which the health library's check for its kind reads. */
function bucket(conditions: ReturnType<typeof condition>[]): KubeObject {
  return apiObject({
    apiVersion: "s3.aws.upbound.io/v1beta1",
    kind: "Bucket",
    metadata: { name: "payments-artifacts", uid: uidOf("Bucket/payments-artifacts"), resourceVersion: "61842", generation: 2, creationTimestamp: createdAt },
    spec: { forProvider: { region: "eu-west-1" }, providerConfigRef: { name: "default" }, deletionPolicy: "Delete" },
    status: { atProvider: { arn: "arn:aws:s3:::payments-artifacts" }, conditions: conditions.map((c) => ({ ...c, observedGeneration: 2 })) },
  });
}

const megabyteReason = `ReconcileError${"x".repeat(900 * 1024)}`;
const escapes = "\u001b]8;;https://evil.example/rotate\u0007click\u001b]8;;\u0007\u001b[2K\r";
const bidi = "\u202eFFOkcaBlluPegamI\u202c\u2066ok\u2069";
/** Every character a terminal acts on or that hides text, as reading.ts must never let through. */
const controlOrInvisible = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\u2028\u2029\ufeff]/;

/** What a reading costs to hold, to store in a record and to publish: its JSON. */
const heldChars = (reading: ResourceReading) => JSON.stringify(reading).length;

function expectShowable(reading: ResourceReading): void {
  expect(reading.reason === undefined || reading.reason === unreadableReason || isReasonShaped(reading.reason)).toBe(true);
  expect(reading.message.length).toBeLessThanOrEqual(maxMessageLength);
  expect(shownMessage(reading)).not.toMatch(controlOrInvisible);
  expect(heldChars(reading)).toBeLessThan(2 * maxMessageLength);
}

describe("shownReason: a reason word, or UnreadableReason", () => {
  it.each([
    "ImagePullBackOff",
    "CrashLoopBackOff",
    "CreateContainerConfigError",
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "ProgressDeadlineExceeded",
    "FailedCreate",
    "OOMKilled",
    "ReconciliationSucceeded",
    "ACK.Terminal",
    "OutOfcpu",
    "x".repeat(128),
  ])("keeps %s, and failOn accepts it", (reason) => {
    expect(shownReason(reason)).toBe(reason);
    expect(FailOnReason.safeParse(reason).success).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["129 characters", "x".repeat(129)],
    ["900 KiB", megabyteReason],
    ["prose", "Failed to pull image"],
    ["a trailing separator", "Reconciling."],
    ["a leading digit", "0Ready"],
    ["an escape sequence", `ImagePullBackOff${escapes}`],
    ["bidi overrides that show ImagePullBackOff", bidi],
    ["a zero-width space inside", "ImagePull\u200bBackOff"],
    ["fullwidth letters", "ＩｍａｇｅＰｕｌｌＢａｃｋＯｆｆ"],
  ])("replaces %s, which failOn could not name either", (_what, reason) => {
    expect(shownReason(reason)).toBe(unreadableReason);
    expect(FailOnReason.safeParse(reason).success).toBe(false);
  });

  it.each([
    ["a GitHub token", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"],
    ["password:value", "password:hunter2"],
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE"],
  ])("replaces a reason-shaped %s: shaped reasons are scrubbed too", (_what, reason) => {
    expect(isReasonShaped(reason)).toBe(true);
    expect(shownReason(reason)).toBe(unreadableReason);
  });
});

describe("a custom resource's condition reasons (the fallback's common signals)", () => {
  it("a 900 KiB reason on Synced=False: UnreadableReason, the message cut to its bound, the reading a few KB", () => {
    const object = widget([condition("Ready", "True", "Available"), condition("Synced", "False", megabyteReason)]);
    const reading = evaluateResource({ object, failOn: defaults });
    expect(reading.state).toBe("pending");
    expect(reading.reason).toBe(unreadableReason);
    // No message, so the condition's words name the reason: cut before anything else reads it.
    expect(reading.message.startsWith("Synced is False (ReconcileErrorxxx")).toBe(true);
    expect(reading.message.endsWith("…")).toBe(true);
    expectShowable(reading);
  });

  it("a 900 KiB reason on Stalled=True still fails, under UnreadableReason", () => {
    const message = "cannot create widget: AccessDenied: User arn:aws:iam::123456789012:user/ci is not authorized";
    const reading = evaluateResource({ object: widget([condition("Stalled", "True", megabyteReason, message)]), failOn: defaults });
    expect(reading).toEqual({ state: "failed", reason: unreadableReason, message: `Stalled: ${message}` });
  });

  it("a reason and message with escape sequences and bidi overrides: reason replaced, message stripped", () => {
    const message = `${escapes}Back-off pulling image${bidi}`;
    const reading = evaluateResource({ object: widget([condition("Ready", "False", `${bidi}${escapes}`, message)]), failOn: defaults });
    expect(reading).toEqual({ state: "pending", reason: unreadableReason, message: "clickBack-off pulling imageFFOkcaBlluPegamIok" });
    expectShowable(reading);
  });

  it("a reason that only looks like ImagePullBackOff (bidi-reversed, zero-width) never matches failOn", () => {
    for (const lookalike of [bidi, "ImagePull\u200bBackOff", "ＩｍａｇｅＰｕｌｌＢａｃｋＯｆｆ"]) {
      const reading = evaluateResource({ object: widget([condition("Ready", "False", lookalike, "waiting")]), failOn: defaults });
      expect(reading).toEqual({ state: "pending", reason: unreadableReason, message: "waiting" });
    }
  });

  it("a planted password in a condition's reason and message is scrubbed from both", () => {
    const object = widget([condition("Ready", "False", "password:hunter2", "connect failed: DB_PASS=hunter2 user=app")]);
    const reading = evaluateResource({ object, failOn: defaults });
    expect(reading).toEqual({ state: "pending", reason: unreadableReason, message: "connect failed: DB_PASS=[redacted] user=app" });
  });

  it("failOn still matches the reasons controllers write (Ready=False ImagePullBackOff, a dotted ACK.Terminal)", () => {
    const pull = evaluateResource({ object: widget([condition("Ready", "False", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/sync:2.0"')]), failOn: defaults });
    expect(pull).toEqual({ state: "failed", reason: "ImagePullBackOff", message: 'Back-off pulling image "ghcr.io/acme/sync:2.0"' });
    const terminal = evaluateResource({ object: widget([condition("Ready", "False", "ACK.Terminal", "bucket name taken")]), failOn: new Set(["ACK.Terminal"]) });
    expect(terminal).toEqual({ state: "failed", reason: "ACK.Terminal", message: "bucket name taken" });
  });

  it("a library kind's health check falls back to its own reason for a reason that is no word", () => {
    const reading = evaluateResource({ object: bucket([condition("Ready", "False", megabyteReason, `${escapes}creating`), condition("Synced", "True", "ReconcileSuccess")]), failOn: defaults });
    expect(reading).toEqual({ state: "pending", reason: "HealthCheckInProgress", message: "clickcreating" });
  });
});

describe("pod reasons (container states, the pod's own)", () => {
  it("a waiting reason carrying a password: UnreadableReason everywhere it is shown", () => {
    const object = pod({ name: "api-7f9c6d8b5-x2k8p", phase: "Pending", containers: [waiting("api", "ErrImagePull: pulling as deploy:hunter2", "rpc error: code = Unknown desc = failed to pull and unpack image")] });
    const reading = evaluateResource({ object, failOn: defaults });
    expect(reading).toEqual({
      state: "pending",
      reason: unreadableReason,
      message: "Pending, 0/1 containers ready; pod api-7f9c6d8b5-x2k8p container api: UnreadableReason: rpc error: code = Unknown desc = failed to pull and unpack image",
    });
    expect(JSON.stringify(reading)).not.toContain("hunter2");
  });

  it("a reason-shaped token as the waiting reason is replaced too", () => {
    const object = pod({ name: "api-7f9c6d8b5-x2k8p", phase: "Pending", containers: [waiting("api", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")] });
    expect(evaluateResource({ object, failOn: defaults })).toMatchObject({ state: "pending", reason: unreadableReason });
  });

  it("an evicted pod's 900 KiB reason stays out of the reading", () => {
    const object = pod({ name: "api-7f9c6d8b5-x2k8p", phase: "Failed", reason: megabyteReason, message: "The node was low on resource: memory.", containers: [running("api", { ready: false })] });
    const reading = evaluateResource({ object, failOn: defaults });
    expect(reading).toEqual({ state: "failed", reason: unreadableReason, message: "Failed, 0/1 containers ready; pod api-7f9c6d8b5-x2k8p: UnreadableReason: on node worker-2: The node was low on resource: memory." });
    expectShowable(reading);
  });

  it("a crash loop's last termination with a 900 KiB reason", () => {
    const crashed = { exitCode: 137, reason: megabyteReason, message: "killed", startedAt: "2026-11-29T10:00:20Z", finishedAt: transitionAt };
    const object = pod({ name: "api-7f9c6d8b5-x2k8p", containers: [waiting("api", "CrashLoopBackOff", "back-off 5m0s restarting failed container", { restartCount: 9, lastTerminated: crashed })] });
    const reading = evaluateResource({ object, failOn: new Set([...defaultFailOn, "CrashLoopBackOff"]) });
    expect(reading).toEqual({
      state: "failed",
      reason: "CrashLoopBackOff",
      message: "Running, 0/1 containers ready, 9 restarts; pod api-7f9c6d8b5-x2k8p container api: CrashLoopBackOff: last exit UnreadableReason with code 137: killed",
      held: { about: "Pod api-7f9c6d8b5-x2k8p", sinceMs: Date.parse(transitionAt), restarts: 9 },
    });
    expectShowable(reading);
  });

  it("failOn still fails ImagePullBackOff at once", () => {
    const object = pod({ name: "api-7f9c6d8b5-x2k8p", phase: "Pending", containers: [waiting("api", "ImagePullBackOff", 'Back-off pulling image "registry/app:v1"')] });
    expect(evaluateResource({ object, failOn: defaults })).toEqual({
      state: "failed",
      reason: "ImagePullBackOff",
      message: "Pending, 0/1 containers ready; pod api-7f9c6d8b5-x2k8p container api: ImagePullBackOff",
      held: { about: "Pod api-7f9c6d8b5-x2k8p", sinceMs: Date.parse(transitionAt) },
    });
  });

  it("the failing container is still found, and its note names the reason as shown", () => {
    const migrate = job({ status: { failed: 1, conditions: [condition("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")] } });
    const stuck = pod({ name: "schema-migrate-8q2lw", owner: migrate, phase: "Pending", containers: [waiting("migrate", `CreateContainerConfigError${escapes}`)] });
    const choice = failingContainer(
      { stage: "bootstrapped", resource: { apiVersion: "v1", kind: "Pod", namespace, name: stuck.metadata.name }, reason: unreadableReason, message: "" },
      stuck,
      { replicaSets: [], pods: [stuck] },
    );
    expect(choice).toEqual({ note: "no log: pod schema-migrate-8q2lw container migrate has not run (UnreadableReason)" });
  });
});

describe("Job condition reasons", () => {
  it("a Failed condition with a 900 KiB reason and a password in its message", () => {
    const migrate = job({
      status: { failed: 4, conditions: [condition("FailureTarget", "True", megabyteReason, "PGPASSWORD=hunter2 psql: FATAL"), condition("Failed", "True", megabyteReason, "PGPASSWORD=hunter2 psql: FATAL")] },
    });
    const reading = evaluateResource({ object: migrate, owned: { replicaSets: [], pods: [pod({ name: "schema-migrate-8q2lw", owner: migrate, containers: [running("migrate")] })] }, failOn: defaults });
    expect(reading).toEqual({ state: "failed", reason: unreadableReason, message: "PGPASSWORD=[redacted] psql: FATAL" });
  });

  it("BackoffLimitExceeded is kept", () => {
    const migrate = job({ status: { failed: 4, conditions: [condition("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit")] } });
    expect(evaluateResource({ object: migrate, failOn: defaults })).toMatchObject({ state: "failed", reason: "BackoffLimitExceeded" });
  });
});

describe("Warning event reasons", () => {
  const warning = (reason: string, message: string): ClusterWarning => ({
    involved: { uid: uidOf("pod/api-7f9c6d8b5-x2k8p"), apiVersion: "v1", kind: "Pod", namespace, name: "api-7f9c6d8b5-x2k8p" },
    eventNamespace: namespace,
    reason,
    message,
    count: 3,
    lastSeenMs: Date.parse(transitionAt),
  });
  const waitingReading = pending("ContainerCreating", "0/1 containers ready");

  it("a reason with escape sequences is shown as UnreadableReason, the message stripped", () => {
    const reading = withWarning(waitingReading, warning(`BackOff${escapes}`, `Back-off pulling image${escapes}`), defaults);
    expect(reading.warning).toMatchObject({ reason: unreadableReason, message: "Back-off pulling imageclick" });
    expect(shownMessage(reading)).not.toMatch(controlOrInvisible);
  });

  it("a reason-shaped token is not matched, shown, or failed on", () => {
    const reading = withWarning(waitingReading, warning("ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", "pull failed"), new Set(["ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"]));
    expect(reading.state).toBe("pending");
    expect(JSON.stringify(reading)).not.toContain("ghp_");
  });

  it("failOn still fails on ImagePullBackOff named by a warning", () => {
    const reading = withWarning(waitingReading, warning("ImagePullBackOff", 'Back-off pulling image "registry/app:v1"'), defaults);
    expect(reading).toMatchObject({ state: "failed", reason: "ImagePullBackOff", warning: { reason: "ImagePullBackOff" } });
  });
});

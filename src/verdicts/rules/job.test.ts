import { describe, expect, it } from "vitest";
import { defaultFailOn } from "../contract/schemas.js";
import { pod, running, terminated, waiting } from "../../../test/fixtures/kube/pods.js";
import { transitionAt } from "../../../test/fixtures/kube/meta.js";
import { job, jobConditions } from "../../../test/fixtures/kube/workloads.js";
import { evaluateResource, type EvaluationInput } from "../evaluation/registry.js";
import type { ResourceReading } from "./reading.js";

const started = "2026-11-29T10:00:02Z";
const migrate = job({ status: {} });

function failedAttempt(name: string, finishedAt: string, message?: string) {
  return pod({
    name,
    owner: migrate,
    phase: "Failed",
    labels: { "batch.kubernetes.io/job-name": "schema-migrate" },
    containers: [terminated("migrate", { exitCode: 1, reason: "Error", finishedAt, ...(message !== undefined && { message }) })],
  });
}

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const cases: Case[] = [
  {
    name: "Complete=True",
    input: {
      object: job({ status: { startTime: started, completionTime: "2026-11-29T10:00:41Z", succeeded: 1, ready: 0, conditions: jobConditions.complete() } }),
    },
    expected: { state: "settled", message: "1/1 completions" },
  },
  {
    name: "SuccessCriteriaMet=True before Complete (pods still terminating)",
    input: { object: job({ completions: 3, status: { startTime: started, succeeded: 3, active: 0, terminating: 1, ready: 0, conditions: jobConditions.successCriteriaMet() } }) },
    expected: { state: "settled", message: "3/3 completions" },
  },
  {
    // As kube-controller-manager 1.37 writes it: the update that adds SuccessCriteriaMet still
    // holds the pod in uncountedTerminatedPods, `succeeded` follows in the next update.
    name: "SuccessCriteriaMet=True while the successful pod is not counted yet",
    input: {
      object: job({
        status: {
          startTime: started,
          ready: 0,
          uncountedTerminatedPods: { succeeded: ["3396c259-d416-4cba-a43e-44414442d0ce"] },
          conditions: jobConditions.successCriteriaMet(),
        },
      }),
    },
    expected: { state: "settled", message: "1/1 completions" },
  },
  {
    name: "running, with a failed attempt not counted yet",
    input: {
      object: job({ status: { startTime: started, active: 1, ready: 0, uncountedTerminatedPods: { failed: ["8d1f2c3b-6a5e-4f70-9b8c-1e2d3c4b5a69"] } } }),
    },
    expected: { state: "pending", message: "0/1 completions, 1 active, 1 failed" },
  },
  {
    name: "Failed=True with BackoffLimitExceeded carries the last failed container's termination message",
    input: {
      object: job({ status: { startTime: started, failed: 4, ready: 0, conditions: jobConditions.failed("BackoffLimitExceeded", "Job has reached the specified backoff limit") } }),
      owned: {
        replicaSets: [],
        pods: [
          failedAttempt("schema-migrate-4hx9d", "2026-11-29T10:00:31Z", "ERROR: could not connect to server: Connection refused"),
          // The last attempt to fail (latest finishedAt), listed out of order on purpose.
          failedAttempt("schema-migrate-z6p2m", "2026-11-29T10:02:12Z", 'ERROR: relation "ledger_entries" already exists (SQLSTATE 42P07)\n'),
          failedAttempt("schema-migrate-8q2lw", "2026-11-29T10:01:05Z", "ERROR: deadlock detected"),
        ],
      },
    },
    expected: {
      state: "failed",
      reason: "BackoffLimitExceeded",
      message: 'Job has reached the specified backoff limit; pod schema-migrate-z6p2m container migrate: Error: ERROR: relation "ledger_entries" already exists (SQLSTATE 42P07)',
    },
  },
  {
    name: "Failed=True with DeadlineExceeded, no termination message written",
    input: {
      object: job({ status: { startTime: started, failed: 1, ready: 0, conditions: jobConditions.failed("DeadlineExceeded", "Job was active longer than specified deadline") } }),
      owned: { replicaSets: [], pods: [failedAttempt("schema-migrate-4hx9d", "2026-11-29T10:10:02Z")] },
    },
    expected: { state: "failed", reason: "DeadlineExceeded", message: "Job was active longer than specified deadline" },
  },
  {
    name: "suspended",
    input: { object: job({ suspend: true, status: { ready: 0, conditions: jobConditions.suspended() } }) },
    expected: { state: "pending", reason: "JobSuspended", message: "Job suspended; 0/1 completions" },
  },
  {
    name: "running",
    input: {
      object: job({ status: { startTime: started, active: 1, ready: 1 } }),
      owned: { replicaSets: [], pods: [pod({ name: "schema-migrate-8q2lw", owner: migrate, containers: [running("migrate")] })] },
    },
    expected: { state: "pending", message: "0/1 completions, 1 active" },
  },
  {
    name: "running a retry after a failed attempt: the failed pod is the Job's bookkeeping",
    input: {
      object: job({ status: { startTime: started, active: 1, failed: 1, ready: 0 } }),
      owned: {
        replicaSets: [],
        pods: [
          failedAttempt("schema-migrate-4hx9d", "2026-11-29T10:00:31Z", "ERROR: could not connect to server: Connection refused"),
          pod({ name: "schema-migrate-8q2lw", owner: migrate, phase: "Pending", containers: [waiting("migrate", "ContainerCreating")] }),
        ],
      },
    },
    expected: { state: "pending", reason: "ContainerCreating", message: "0/1 completions, 1 active, 1 failed; pod schema-migrate-8q2lw container migrate: ContainerCreating" },
  },
  {
    name: "a Job pod in ImagePullBackOff fails it (the Job alone would wait forever)",
    input: {
      object: job({ status: { startTime: started, active: 1, ready: 0 } }),
      owned: {
        replicaSets: [],
        pods: [
          pod({
            name: "schema-migrate-x7k2p",
            owner: migrate,
            phase: "Pending",
            containers: [waiting("migrate", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/payments-migrate:1.4.3"')],
          }),
        ],
      },
    },
    expected: { state: "failed", held: { about: "Pod schema-migrate-x7k2p", sinceMs: Date.parse(transitionAt) }, reason: "ImagePullBackOff", message: "0/1 completions, 1 active; pod schema-migrate-x7k2p container migrate: ImagePullBackOff" },
  },
];

describe("Job rule", () => {
  it.each(cases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

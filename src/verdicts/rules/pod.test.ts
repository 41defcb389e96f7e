import { describe, expect, it } from "vitest";
import { defaultFailOn } from "../contract/schemas.js";
import { pod, running, terminated, waiting } from "../../../test/fixtures/kube/pods.js";
import { transitionAt } from "../../../test/fixtures/kube/meta.js";
import { evaluateResource, type EvaluationInput } from "../evaluation/registry.js";
import type { ResourceReading } from "./reading.js";

const image = "ghcr.io/acme/payments-api:1.4.3";
const notFound = `rpc error: code = NotFound desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": ${image}: not found`;
const invalid =
  'Failed to apply default image tag "ghcr.io/acme/Payments-API:1.4": couldn\'t parse image name "ghcr.io/acme/Payments-API:1.4": invalid reference format: repository name (acme/Payments-API) must be lowercase';
const unschedulable = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
const crashed = { exitCode: 1, reason: "Error", startedAt: "2026-11-29T10:04:10Z", finishedAt: "2026-11-29T10:04:11Z" };
const crashLoop = waiting("api", "CrashLoopBackOff", "back-off 2m40s restarting failed container=api pod=debug_payments(0b1c5e3a-7d2f-4c1e-9a8b-3f6d2e1c0b9a)", {
  restartCount: 5,
  lastTerminated: crashed,
});

interface Case {
  name: string;
  input: Partial<EvaluationInput> & Pick<EvaluationInput, "object">;
  expected: ResourceReading;
}

const cases: Case[] = [
  {
    name: "running and ready",
    input: { object: pod({ name: "debug" }) },
    // What it runs, by digest: the verdict's evidence (readyImages.ts).
    expected: { state: "settled", message: "Running, 1/1 containers ready", images: ["ghcr.io/acme/payments-api@sha256:9b2f6c1e0d8a7b4c3e5f1a2d6c8b0e4f7a9d3c5b1e2f4a6c8d0b2e4f6a8c1d3e"] },
  },
  {
    name: "succeeded",
    input: { object: pod({ name: "debug", phase: "Succeeded", containers: [terminated("api", { exitCode: 0, reason: "Completed" })] }) },
    expected: { state: "settled", message: "Succeeded" },
  },
  {
    name: "init container in ImagePullBackOff",
    input: {
      object: pod({
        name: "debug",
        phase: "Pending",
        initContainers: [waiting("wait-for-db", "ImagePullBackOff", 'Back-off pulling image "ghcr.io/acme/wait-for:2.1"')],
        containers: [waiting("api", "PodInitializing")],
      }),
    },
    expected: { state: "failed", held: { about: "Pod debug", sinceMs: Date.parse(transitionAt) }, reason: "ImagePullBackOff", message: "Pending, 0/1 containers ready; pod debug init container wait-for-db: ImagePullBackOff" },
  },
  {
    name: "InvalidImageName",
    input: { object: pod({ name: "debug", phase: "Pending", containers: [waiting("api", "InvalidImageName", invalid)] }) },
    expected: { state: "failed", held: { about: "Pod debug", sinceMs: Date.parse(transitionAt) }, reason: "InvalidImageName", message: `Pending, 0/1 containers ready; pod debug container api: InvalidImageName: ${invalid}` },
  },
  {
    name: "ErrImagePull is pending: the kubelet retries before backing off",
    input: { object: pod({ name: "debug", phase: "Pending", containers: [waiting("api", "ErrImagePull", notFound)] }) },
    expected: { state: "pending", reason: "ErrImagePull", message: `Pending, 0/1 containers ready; pod debug container api: ErrImagePull: ${notFound}` },
  },
  {
    name: "CrashLoopBackOff is pending by default, with the last exit",
    input: { object: pod({ name: "debug", containers: [crashLoop] }) },
    expected: { state: "pending", reason: "CrashLoopBackOff", message: "Running, 0/1 containers ready, 5 restarts; pod debug container api: CrashLoopBackOff: last exit Error with code 1" },
  },
  {
    name: "CrashLoopBackOff fails when the request's failOn names it",
    input: { object: pod({ name: "debug", containers: [crashLoop] }), failOn: new Set([...defaultFailOn, "CrashLoopBackOff"]) },
    expected: { state: "failed", held: { about: "Pod debug", sinceMs: Date.parse(transitionAt), restarts: 5 }, reason: "CrashLoopBackOff", message: "Running, 0/1 containers ready, 5 restarts; pod debug container api: CrashLoopBackOff: last exit Error with code 1" },
  },
  {
    name: "failOn narrowed to nothing: ImagePullBackOff waits",
    input: { object: pod({ name: "debug", phase: "Pending", containers: [waiting("api", "ImagePullBackOff", `Back-off pulling image "${image}"`)] }), failOn: new Set() },
    expected: { state: "pending", reason: "ImagePullBackOff", message: "Pending, 0/1 containers ready; pod debug container api: ImagePullBackOff" },
  },
  {
    name: "unschedulable, with the scheduler's message",
    input: { object: pod({ name: "debug", phase: "Pending", unschedulable }) },
    expected: { state: "pending", reason: "Unschedulable", message: `Pending, 0/1 containers ready; pod debug: Unschedulable: ${unschedulable}` },
  },
  {
    name: "CreateContainerConfigError keeps the missing secret's name (no credential in it)",
    input: { object: pod({ name: "debug", phase: "Pending", containers: [waiting("api", "CreateContainerConfigError", 'secret "payments-db" not found')] }) },
    expected: { state: "pending", reason: "CreateContainerConfigError", message: 'Pending, 0/1 containers ready; pod debug container api: CreateContainerConfigError: secret "payments-db" not found' },
  },
  {
    name: "a pull rate limit quoting the Docker Hub user and token is scrubbed",
    input: {
      object: pod({
        name: "debug",
        phase: "Pending",
        containers: [
          waiting(
            "api",
            "ErrImagePull",
            "failed to pull and unpack image \"docker.io/library/redis:7.4\": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/redis/manifests/sha256:3b1d: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit as 'acme-ci': dckr_jti_9Lg3-DN__PcJ-S_X3BoAVBr-mIk=. You may increase the limit by upgrading. https://www.docker.com/increase-rate-limit",
          ),
        ],
      }),
    },
    expected: {
      state: "pending",
      reason: "ErrImagePull",
      message:
        "Pending, 0/1 containers ready; pod debug container api: ErrImagePull: failed to pull and unpack image \"docker.io/library/redis:7.4\": failed to copy: httpReadSeeker: failed open: unexpected status code https://registry-1.docker.io/v2/library/redis/manifests/sha256:3b1d: 429 Too Many Requests - Server message: toomanyrequests: You have reached your pull rate limit as [redacted]. You may increase the limit by upgrading. https://www.docker.com/increase-rate-limit",
    },
  },
  {
    name: "running but not ready (readiness probe failing)",
    input: { object: pod({ name: "debug", containers: [running("api", { ready: false, restartCount: 1 })] }) },
    expected: { state: "pending", reason: "ContainersNotReady", message: "Running, 0/1 containers ready, 1 restart; pod debug: ContainersNotReady: containers with unready status: [api]" },
  },
  {
    name: "evicted",
    input: {
      object: pod({
        name: "debug",
        phase: "Failed",
        reason: "Evicted",
        message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91432Ki. Container api was using 1486Mi, request is 256Mi, has larger consumption of memory.",
        containers: [terminated("api", { exitCode: 137, reason: "ContainerStatusUnknown", message: "The container could not be located when the pod was terminated" })],
      }),
    },
    expected: {
      state: "failed",
      reason: "Evicted",
      message:
        "Failed, 0/1 containers ready; pod debug: Evicted: on node worker-2: The node was low on resource: memory. Threshold quantity: 100Mi, available: 91432Ki. Container api was using 1486Mi, request is 256Mi, has larger consumption of memory.",
    },
  },
];

describe("Pod rule", () => {
  it.each(cases)("$name", ({ input, expected }) => {
    expect(evaluateResource({ failOn: new Set(defaultFailOn), ...input })).toEqual(expected);
  });
});

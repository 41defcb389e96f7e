// stagewatch refused by the API server (RBAC, an expired token): the reducer fails what it can no
// longer read with the server's own reason and words, at once, through the usual failure path.
import { describe, expect, it } from "vitest";
import { keys, observation, seconds } from "../../../test/fixtures/observation.js";
import { uidOf } from "../../../test/fixtures/kube/meta.js";
import { cancelObservation, markCachesSynced, nextWakeAt, recordAccessProblem, recordDeletion, recordReading, toVerdict, type AccessProblem } from "./observation.js";
import type { ObservationState } from "./observationState.js";
import { failed, pending, settled, type ResourceReading } from "../rules/reading.js";
import type { ObservationRequestInput } from "../contract/schemas.js";

const serviceAccount = "system:serviceaccount:stagewatch:stagewatch";
const secretKey = "core/Secret/payments/payments-db";

/** What kube-apiserver answers a list RBAC refuses, in the namespace given or cluster-wide. */
function forbidden(resource: string, namespace?: string, verb = "list"): AccessProblem {
  const scope = namespace === undefined ? "at the cluster scope" : `in the namespace "${namespace}"`;
  const message = `${resource} is forbidden: User "${serviceAccount}" cannot ${verb} resource "${resource}" in API group "" ${scope}`;
  return namespace === undefined ? { reason: "Forbidden", verb, resource, message } : { reason: "Forbidden", verb, resource, namespace, message };
}

const withSecret: Partial<ObservationRequestInput> = {
  resources: [
    { apiVersion: "batch/v1", kind: "Job", namespace: "payments", name: "schema-migrate", bootstrap: true },
    { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 },
    { apiVersion: "v1", kind: "ConfigMap", name: "api-config" },
    { apiVersion: "v1", kind: "Secret", name: "payments-db" },
  ],
};

function read(state: ObservationState, key: string, reading: ResourceReading, atSeconds: number): ObservationState {
  return recordReading(state, key, { uid: uidOf(key), generation: 7, reading }, seconds(atSeconds)).state;
}

/** Config settled, the bootstrap Job done, the Deployment rolling, the Secret never seen. */
function underway(overrides: Partial<ObservationRequestInput> = {}): ObservationState {
  let state = markCachesSynced(observation({ ...withSecret, ...overrides }), seconds(1)).state;
  state = read(state, keys.config, settled("exists"), 2);
  state = read(state, keys.migrate, settled("1/1 completions"), 3);
  return read(state, keys.api, pending(undefined, "1/3 replicas ready, 3 updated"), 4);
}

interface Case {
  name: string;
  state: () => ObservationState;
  key: string;
  problem: AccessProblem;
  outcome: string;
  /** The resource's reading after the call. */
  resource: { state: string; reason?: string; message: string };
  /** The verdict's message once decided. */
  message?: string;
  failure?: { stage: string; reason: string };
}

const cases: Case[] = [
  {
    name: "a Secret never seen, its namespace refused: fails at applied, naming the Secret and the server's words",
    state: () => underway(),
    key: secretKey,
    problem: forbidden("secrets", "payments"),
    outcome: "failed",
    resource: {
      state: "failed",
      reason: "Forbidden",
      message: `stagewatch cannot list secrets in payments: secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" in the namespace "payments"`,
    },
    message:
      "deployment payments cannot reach applied: Secret payments/payments-db: failed: Forbidden: stagewatch cannot list secrets in payments: " +
      `secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" in the namespace "payments"`,
    failure: { stage: "applied", reason: "Forbidden" },
  },
  {
    name: "a Secret never seen, the cluster-wide list refused: the server's message carries the scope",
    state: () => underway(),
    key: secretKey,
    problem: forbidden("secrets"),
    outcome: "failed",
    resource: {
      state: "failed",
      reason: "Forbidden",
      message: `stagewatch cannot list secrets: secrets is forbidden: User "${serviceAccount}" cannot list resource "secrets" in API group "" at the cluster scope`,
    },
    failure: { stage: "applied", reason: "Forbidden" },
  },
  {
    name: "a Deployment seen rolling out whose pods cannot be watched: fails at healthy, the first stage it blocks",
    state: () => read(underway(), secretKey, settled("exists"), 5),
    key: keys.api,
    problem: forbidden("pods", "payments", "watch"),
    outcome: "failed",
    resource: {
      state: "failed",
      reason: "Forbidden",
      message: `stagewatch cannot watch pods in payments: pods is forbidden: User "${serviceAccount}" cannot watch resource "pods" in API group "" in the namespace "payments"`,
    },
    message:
      "deployment payments cannot reach healthy: Deployment payments/api: failed: Forbidden: stagewatch cannot watch pods in payments: " +
      `pods is forbidden: User "${serviceAccount}" cannot watch resource "pods" in API group "" in the namespace "payments"`,
    failure: { stage: "healthy", reason: "Forbidden" },
  },
  {
    name: "an expired token: Unauthorized, in the server's one word",
    state: () => underway(),
    key: secretKey,
    problem: { reason: "Unauthorized", verb: "list", resource: "secrets", message: "Unauthorized" },
    outcome: "failed",
    resource: { state: "failed", reason: "Unauthorized", message: "stagewatch cannot list secrets: Unauthorized" },
    failure: { stage: "applied", reason: "Unauthorized" },
  },
  {
    name: "beyond the required stage: the Deployment's failure is recorded, not fatal",
    state: () => {
      let state = markCachesSynced(observation({ ...withSecret, require: "bootstrapped" }), seconds(1)).state;
      state = read(state, keys.config, settled("exists"), 2);
      state = read(state, secretKey, settled("exists"), 2);
      state = read(state, keys.migrate, pending(undefined, "0/1 completions, 1 active"), 3);
      return read(state, keys.api, pending(undefined, "1/3 replicas ready, 3 updated"), 4);
    },
    key: keys.api,
    problem: forbidden("pods", "payments"),
    outcome: "in_progress",
    resource: { state: "failed", reason: "Forbidden", message: expect.stringMatching(/^stagewatch cannot list pods in payments: /) as unknown as string },
  },
  {
    name: "a settled ConfigMap keeps its verdict",
    state: () => underway(),
    key: keys.config,
    problem: forbidden("configmaps", "payments"),
    outcome: "in_progress",
    resource: { state: "settled", message: "exists" },
  },
];

describe("recordAccessProblem", () => {
  it.each(cases)("$name", ({ state, key, problem, outcome, resource, message, failure }) => {
    const before = state();
    const step = recordAccessProblem(before, key, problem, seconds(6));
    const verdict = toVerdict(step.state);
    expect(verdict.outcome).toBe(outcome);
    const index = [...before.resources.keys()].indexOf(key);
    expect(verdict.resources[index]).toEqual({ identity: before.resources.get(key)!.identity, ...resource });
    if (message !== undefined) expect(verdict.message).toBe(message);
    if (failure) {
      expect(verdict.failure).toMatchObject({ ...failure, resource: before.resources.get(key)!.identity, message: resource.message });
      expect(verdict.decidedAt).toBe("2026-11-29T10:00:06.000Z");
    } else {
      expect(verdict.failure).toBeUndefined();
    }
  });

  it("announces the failure once; the same problem again changes nothing", () => {
    const first = recordAccessProblem(underway(), secretKey, forbidden("secrets", "payments"), seconds(6));
    expect(first.changes.map((change) => change.type)).toEqual(["resource", "verdict"]);
    const again = recordAccessProblem(first.state, secretKey, forbidden("secrets", "payments"), seconds(7));
    expect(again.changes).toEqual([]);
    expect(again.state).toBe(first.state);
  });

  it("a resource in its deletion grace fails Forbidden now, not NotFound when the grace ends", () => {
    const deleting = recordDeletion(read(underway(), secretKey, settled("exists"), 5), keys.api, uidOf(keys.api), seconds(10)).state;
    expect(nextWakeAt(deleting)).toBe(seconds(20));
    const step = recordAccessProblem(deleting, keys.api, forbidden("deployments", "payments", "watch"), seconds(12));
        // Bootstrapped was reached before the delete; a stage reached stays reached.
    expect(toVerdict(step.state)).toMatchObject({ outcome: "failed", failure: { stage: "healthy", reason: "Forbidden" }, decidedAt: "2026-11-29T10:00:12.000Z" });
    expect(nextWakeAt(step.state)).toBeUndefined();
  });

  it("a decided observation is not changed by a refusal that comes later", () => {
    const cancelled = cancelObservation(underway(), "superseded by revision 43", seconds(30)).state;
    const step = recordAccessProblem(cancelled, secretKey, forbidden("secrets", "payments"), seconds(31));
    expect(step.changes).toEqual([]);
    expect(step.state).toBe(cancelled);
  });

  it("a resource failed for its own reason keeps it", () => {
    const imageFault = failed("ImagePullBackOff", "0/3 replicas ready, 3 updated; pod api-7f9c6d8b5-x2k8p container api: ImagePullBackOff");
    const state = read(underway({ require: "bootstrapped" }), keys.api, imageFault, 5);
    const step = recordAccessProblem(state, keys.api, forbidden("pods", "payments"), seconds(6));
    expect(step.changes).toEqual([]);
    expect(step.state.resources.get(keys.api)?.reading).toEqual(imageFault);
  });
});

import { describe, expect, it } from "vitest";
import { failed, pending, settled } from "../rules/reading.js";
import { awaitingOwnedObjects } from "./awaitingOwnedObjects.js";

const deployment = { apiVersion: "apps/v1", kind: "Deployment" };
const statefulSet = { apiVersion: "apps/v1", kind: "StatefulSet" };
const job = { apiVersion: "batch/v1", kind: "Job" };
const configMap = { apiVersion: "v1", kind: "ConfigMap" };
const notListed = () => false;
const listed = () => true;

describe("awaitingOwnedObjects", () => {
  it("keeps a workload read ready pending until its pods are listed, its count kept", () => {
    const ready = { ...settled("3/3 replicas ready, 3 updated"), replicas: 3 };
    expect(awaitingOwnedObjects(deployment, ready, notListed)).toEqual({ state: "pending", message: "3/3 replicas ready, 3 updated; its pods not listed yet", replicas: 3 });
    expect(awaitingOwnedObjects(statefulSet, settled("2/2 replicas ready at revision web-5d8f7c9b4"), notListed)).toMatchObject({ state: "pending" });
    expect(awaitingOwnedObjects(deployment, ready, listed)).toBe(ready);
  });

  it("asks about the workload's own kind: a Deployment reads its ReplicaSets too", () => {
    const asked: string[] = [];
    awaitingOwnedObjects(deployment, settled("1/1 replicas ready, 1 updated"), (kind) => (asked.push(kind), true));
    expect(asked).toEqual(["apps/Deployment"]);
  });

  it("never holds a failure, a pending reading, a Job or a kind that owns nothing", () => {
    const pullBackOff = failed("ImagePullBackOff", 'pod api-7f9c6d8b5-x2k8p container api: Back-off pulling image "ghcr.io/acme/payments-api:1.4.4"');
    const creating = pending("ContainerCreating", "0/2 replicas ready, 2 updated");
    const complete = settled("1/1 completions");
    const exists = settled("exists");
    expect(awaitingOwnedObjects(deployment, pullBackOff, notListed)).toBe(pullBackOff);
    expect(awaitingOwnedObjects(deployment, creating, notListed)).toBe(creating);
    expect(awaitingOwnedObjects(job, complete, notListed)).toBe(complete);
    expect(awaitingOwnedObjects(configMap, exists, notListed)).toBe(exists);
  });
});

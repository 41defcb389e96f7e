import { describe, expect, it } from "vitest";
import { captured } from "../../../test/fixtures/kube/captured.js";
import { recordReading } from "./observation.js";
import { startObservation } from "./observationState.js";
import { evaluateResource } from "../evaluation/registry.js";
import { ObservationRequest } from "../contract/schemas.js";

const service = captured("service-loadbalancer-pending");

function observe(loadBalancerAddress?: "wait" | "ignore") {
  const request = ObservationRequest.parse({
    key: "ci-1/web",
    deployment: "web",
    require: "healthy",
    timeoutSeconds: 60,
    resources: [{ apiVersion: "v1", kind: "Service", namespace: service.metadata.namespace, name: service.metadata.name }],
    ...(loadBalancerAddress && { loadBalancerAddress }),
  });
  const started = startObservation({ observationId: "obs-1", request, startedAtMs: 0, deadlineMs: 60_000 });
  if (!started.ok) throw new Error("invalid");
  const reading = evaluateResource({ object: service, failOn: started.value.failOn });
  const [key] = started.value.resources.keys();
  return recordReading(started.value, key!, { uid: service.metadata.uid, reading }, 1_000);
}

describe("a LoadBalancer Service without an address, as the request takes it", () => {
  it("waits by default", () => {
    expect(observe().state.outcome).toBe("in_progress");
    expect([...observe().state.resources.values()][0]!.reading).toMatchObject({ state: "pending", reason: "AwaitingLoadBalancer" });
  });

  it("is settled with loadBalancerAddress: ignore, saying so", () => {
    const step = observe("ignore");
    expect(step.state.outcome).toBe("succeeded");
    expect([...step.state.resources.values()][0]!.reading).toEqual({
      state: "settled",
      message: "no load balancer address, settled without one (the request's loadBalancerAddress: ignore)",
    });
  });

  it("the field takes wait or ignore only", () => {
    expect(ObservationRequest.safeParse({ key: "k", deployment: "d", require: "healthy", timeoutSeconds: 1, resources: [{ apiVersion: "v1", kind: "Service", name: "s" }], loadBalancerAddress: "skip" }).success).toBe(false);
  });
});

describe("failOn names the reasons controllers write", () => {
  const request = (failOn: string[]) => ObservationRequest.safeParse({ key: "k", deployment: "d", require: "healthy", timeoutSeconds: 1, resources: [{ apiVersion: "v1", kind: "Service", name: "s" }], failOn });
  it.each(["ACK.Terminal", "ReconcileError", "Back-off", "Failed:Install", "ImagePullBackOff"])("%s is accepted", (reason) => {
    expect(request([reason]).success).toBe(true);
  });
  it.each(["", "1Failed", "has space", "Trailing.", "semi;colon"])("%j is refused", (reason) => {
    expect(request([reason]).success).toBe(false);
  });
});

// What a request says about a LoadBalancer Service without an address. Waiting for the address
// is the default (Argo CD and Helm's legacy wait agree: nothing outside the cluster reaches the
// Service before it has one), but on a cluster with no load-balancer controller (kind, kwok, bare
// metal without MetalLB) nobody ever writes it, and a chart that ships one (ingress-nginx) waits
// out its budget. `loadBalancerAddress: ignore` settles it as kstatus does, and says so.
import { settled, type ResourceReading } from "../rules/reading.js";
import { awaitingLoadBalancer } from "../rules/service.js";
import type { ObservationRequest } from "../contract/schemas.js";

export type LoadBalancerAddress = NonNullable<ObservationRequest["loadBalancerAddress"]>;

/** The Service rule's reading as the request takes it. */
export function withLoadBalancerChoice(reading: ResourceReading, choice: LoadBalancerAddress): ResourceReading {
  if (choice !== "ignore" || reading.state !== "pending" || reading.reason !== awaitingLoadBalancer) return reading;
  return settled("no load balancer address, settled without one (the request's loadBalancerAddress: ignore)");
}

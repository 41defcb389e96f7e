// Service: a ClusterIP, NodePort, headless or ExternalName Service serves once it exists (the
// API server allocates its IP and ports in the create). A LoadBalancer Service is reachable only
// once a load-balancer controller has written its address into status.loadBalancer.ingress; until
// then it is pending, as Helm's waiter and Argo CD have it (kubectl shows EXTERNAL-IP <pending>).
// A cluster without a load-balancer implementation never writes one, so the message says so.
import type { Service } from "../../kube/objects.js";
import { pending, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export const awaitingLoadBalancer = "AwaitingLoadBalancer";

export function settleService({ object }: RuleInput): ResourceReading {
  const service = object as Service;
  if (service.spec?.type !== "LoadBalancer") return settled("exists");
  const addresses = (service.status?.loadBalancer?.ingress ?? []).map((ingress) => ingress.ip ?? ingress.hostname).filter((a) => a !== undefined);
  if (addresses.length > 0) return settled(`load balancer ${addresses.join(", ")}`);
  return pending(
    awaitingLoadBalancer,
    "no load balancer address yet (status.loadBalancer.ingress is empty; a cluster without a load-balancer controller never writes one)",
  );
}

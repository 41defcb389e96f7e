// The API server refusing stagewatch's own identity a list or watch: RBAC without the verb
// (403 Forbidden), or a credential it no longer accepts (401 Unauthorized, an expired token).
// Retrying does not help until someone changes the cluster, so the informer says so instead of
// only logging it: an observation waiting on that kind can then fail with the real cause at once
// rather than time out with "not seen in the cluster yet". The reflector keeps retrying all the
// same, since RBAC can be fixed while the service runs.
import { KubeRequestError } from "./transport.js";

export const accessProblemReasons = ["Unauthorized", "Forbidden"] as const;
export type AccessProblemReason = (typeof accessProblemReasons)[number];

export interface InformerProblem {
  /** From the HTTP status (401, 403), which the Status object's reason always matches. */
  readonly reason: AccessProblemReason;
  /** The request refused. */
  readonly verb: "list" | "watch";
  /** The namespace the refused request was for; undefined for a cluster-wide list or watch. */
  readonly namespace?: string | undefined;
  /**
   * The server's own words, e.g. `secrets is forbidden: User "system:serviceaccount:stagewatch:
   * stagewatch" cannot list resource "secrets" in API group "" in the namespace "payments"`.
   */
  readonly message: string;
}

const reasonByStatus: ReadonlyMap<number | undefined, AccessProblemReason> = new Map([
  [401, "Unauthorized"],
  [403, "Forbidden"],
]);

/** The problem a failed request stands for, or undefined when it is not a refusal of access. */
export function accessProblemOf(error: unknown, verb: InformerProblem["verb"], namespace: string | undefined): InformerProblem | undefined {
  if (!(error instanceof KubeRequestError)) return undefined;
  const reason = reasonByStatus.get(error.status);
  if (reason === undefined) return undefined;
  const message = error.statusMessage ?? error.message;
  return namespace === undefined ? { reason, verb, message } : { reason, verb, namespace, message };
}

export function sameProblem(a: InformerProblem, b: InformerProblem): boolean {
  return a.reason === b.reason && a.verb === b.verb && a.namespace === b.namespace && a.message === b.message;
}

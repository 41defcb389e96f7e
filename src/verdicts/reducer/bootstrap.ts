// A bootstrap Job (schema migration, seed data) must complete before the deployment counts as
// bootstrapped. It is marked in the request or by the label on the Job itself; the label's value is
// not read (`"true"`, `"schema"`, even `"false"` all mark it), as SPEC section 1 says "any value".
import type { ResourceIdentity } from "../contract/schemas.js";
import { groupKind } from "../contract/kinds.js";

export const bootstrapLabel = "stagewatch.io/bootstrap";

export function isBootstrapJob(
  identity: Pick<ResourceIdentity, "apiVersion" | "kind" | "bootstrap">,
  object?: { metadata: { labels?: Readonly<Record<string, string>> | undefined } },
): boolean {
  if (groupKind(identity.apiVersion, identity.kind) !== "batch/Job") return false;
  return identity.bootstrap === true || object?.metadata.labels?.[bootstrapLabel] !== undefined;
}

// Idempotency by key (SPEC section 7): the same key with the same content is a replay, the same
// key with other content a conflict. "Same content" must not depend on how a client happened to
// serialise the request, so the hash is taken over the parsed request (defaults applied) in a
// canonical form.
import { createHash } from "node:crypto";
import { canonicalJson } from "../signing/canonicalForm.js";
import type { ObservationRequest } from "../verdicts/schemas.js";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * sha256 of the canonical request. `resources` and `failOn` are sets in meaning: a CI retry that
 * reads the same manifests in another order is the same request, not a conflict.
 */
export function contentHash(request: ObservationRequest): string {
  const resources = request.resources.map(canonicalJson).sort();
  const failOn = [...new Set(request.failOn)].sort();
  return sha256Hex(canonicalJson({ ...request, resources, failOn }));
}

// Idempotency by key (SPEC section 7): the same key with the same content is a replay, the same
// key with other content a conflict. "Same content" must not depend on how a client happened to
// serialise the request, so the hash is taken over the parsed request (defaults applied) in a
// canonical form.
import { createHash } from "node:crypto";
import { canonicalJson } from "../signing/canonicalForm.js";
import { defaultFailOn, type ObservationRequest } from "../verdicts/contract/schemas.js";
import { failOnText } from "../verdicts/contract/failOn.js";

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * sha256 of the canonical request. `resources` and `failOn` are sets in meaning: a CI retry that
 * reads the same manifests in another order is the same request, not a conflict. The trace
 * context is not what is observed but who asks: a retried CI step runs under a new span, and is
 * the same request (the observation's trace stays the first request's).
 */
export function contentHash(request: ObservationRequest): string {
  const { traceparent: _asker, tracestate: _asked, ...observed } = request;
  const resources = observed.resources.map(canonicalJson).sort();
  // Left out is the default it had before the service's became configurable, so a request keeps
  // its hash across an upgrade; `X` and `{reason: X, graceSeconds: 0}` say the same, and hash so.
  const failOn = [...new Set((observed.failOn ?? defaultFailOn).map(failOnText))].sort();
  return sha256Hex(canonicalJson({ ...observed, resources, failOn }));
}

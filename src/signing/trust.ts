// What a reader checks before it believes a verdict or an event: a valid signature by a trusted
// key is not enough on its own, because a signed body can be copied. Anyone may take the
// service's genuine `succeeded` verdict of one observation and publish it on another's subject,
// or answer a request with another observation's id; so the body must also be about the
// observation (and, for `observe`, the request) the reader asked about. A verdict event is
// checked twice: its own signature (which covers the verdict it carries), and the verdict's,
// which is what a reader keeps as evidence.
import { verifyBody, type SignatureProblem } from "./signature.js";
import type { VerifyKey } from "./keys.js";

export type TrustProblem = SignatureProblem | "other observation" | "other request";

export type Trust = { trusted: true; key: string } | { trusted: false; problem: TrustProblem; message: string };

/** What the reader asked about: the observation, and when it sent the request, its idempotency key. */
export interface Expected {
  readonly observationId: string;
  readonly key?: string | undefined;
}

const member = (body: unknown, name: string): unknown =>
  body !== null && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;

const distrust = (problem: TrustProblem, message: string): Trust => ({ trusted: false, problem, message });

function signed(body: unknown, keys: readonly VerifyKey[]): Trust {
  const verification = verifyBody(body, keys);
  return verification.valid ? { trusted: true, key: verification.key } : distrust(verification.problem, verification.message);
}

/** A verdict (a `get` or `cancel` answer, the one inside a verdict event, an evidence file) of the observation expected. */
export function checkVerdict(verdict: unknown, keys: readonly VerifyKey[], expected?: Expected): Trust {
  const trust = signed(verdict, keys);
  if (!trust.trusted || expected === undefined) return trust;
  const observationId = member(verdict, "observationId");
  if (observationId !== expected.observationId) return distrust("other observation", `a verdict of observation ${String(observationId)}, not ${expected.observationId}`);
  const key = member(verdict, "key");
  if (expected.key !== undefined && key !== expected.key) return distrust("other request", `a verdict for key ${JSON.stringify(key)}, not ${JSON.stringify(expected.key)}`);
  return trust;
}

/** An event read from the observation's subject. */
export function checkEvent(event: unknown, keys: readonly VerifyKey[], expected: Expected): Trust {
  const trust = signed(event, keys);
  if (!trust.trusted) return trust;
  const observationId = member(event, "observationId");
  if (observationId !== expected.observationId) return distrust("other observation", `an event of observation ${String(observationId)}, not ${expected.observationId}`);
  return member(event, "type") === "verdict" ? checkVerdict(member(event, "verdict"), keys, expected) : trust;
}

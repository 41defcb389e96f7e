// CertificateSigningRequest: settled once approved and the signer has written the certificate.
// Denied and Failed are terminal (a denied request is never approved later; a new one is needed).
// Until a person or an approver controller acts, it is pending: its status is `{}` until then.
import { failed, pending, settled, type ResourceReading } from "./reading.js";
import type { RuleInput } from "./input.js";

export function settleCertificateSigningRequest({ object }: RuleInput): ResourceReading {
  const status = object.status ?? {};
  const conditions = status.conditions ?? [];
  const holding = (type: string) => conditions.find((c) => c.type === type && c.status === "True");
  const refusal = holding("Denied") ?? holding("Failed");
  if (refusal) return failed(refusal.reason ?? refusal.type, refusal.message ?? `${refusal.type}`);
  const approved = holding("Approved");
  if (!approved) return pending("AwaitingApproval", "not approved yet");
  if (typeof status["certificate"] === "string" && status["certificate"] !== "") return settled(`approved (${approved.reason ?? "Approved"}), certificate issued`);
  return pending("Issuing", `approved (${approved.reason ?? "Approved"}), waiting for the signer to issue the certificate`);
}

// Who sent a request, as the NATS server says it (docs/operator/tenants-and-trust.md). With a
// tenants file the service lives in an account of its own and exports `<prefix>.<request>.*` with
// the account token at the last position: the server lets each team's account import only the
// subject that names it, and on every message that crosses the import it stamps the
// Nats-Request-Info header with the importing account (`acc`), replacing whatever the client set,
// and gives it a reply subject of its own (`_R_.`). So a request is believed only when it came that
// way: the header is there, names the account the subject names, and the reply is the server's. A
// client inside the service's own account crosses no import, and its header is whatever it wrote:
// that account's permissions (only the service's user, which may not publish requests) are what
// keep it out; these checks refuse what such a client sends naively, and every request of a
// misconfigured import.
import { z } from "zod";
import { soleCaller, type Caller, type TenantDirectory } from "../../tenants/index.js";
import type { FieldIssue } from "../../verdicts/contract/schemas.js";

export const requestInfoHeader = "Nats-Request-Info";
/** What nats-server prefixes the reply subject of a request crossing a service import with. */
export const serviceImportReplyPrefix = "_R_.";

/** The part of the header stagewatch reads: the requesting account (nats-server's ClientInfo `acc`; `rtt` and, with `share`, more beside it). */
const RequestInfo = z.looseObject({ acc: z.string().min(1) });

export type CallerIdentification = { ok: true; caller: Caller } | { ok: false; message: string; issues: FieldIssue[] };

export interface ArrivedRequest {
  /** The subject's tenant token (`<prefix>.<request>.<tenant>`); undefined on the plain subject. */
  readonly tenantToken: string | undefined;
  /** The Nats-Request-Info header as it arrived; undefined when absent. */
  readonly requestInfo: string | undefined;
  readonly reply: string | undefined;
}

const refused = (message: string): CallerIdentification => ({ ok: false, message, issues: [{ path: "(caller)", message }] });

/** Without a tenants file every request is the sole caller's, as before tenants. */
export function identifyCaller(tenants: TenantDirectory | undefined, request: ArrivedRequest): CallerIdentification {
  if (tenants === undefined) return { ok: true, caller: soleCaller };
  if (request.tenantToken === undefined) {
    return refused("this service answers tenants only: send the request through your NATS account's import of the subject that names your account");
  }
  if (request.requestInfo === undefined || request.requestInfo === "") {
    return refused(`no ${requestInfoHeader} header: the request did not cross a NATS service import`);
  }
  if (request.reply === undefined || !request.reply.startsWith(serviceImportReplyPrefix)) {
    return refused("the request's reply subject is not one nats-server gives a request crossing a service import");
  }
  let info: unknown;
  try {
    info = JSON.parse(request.requestInfo);
  } catch {
    return refused(`the ${requestInfoHeader} header is not JSON`);
  }
  const parsed = RequestInfo.safeParse(info);
  if (!parsed.success) return refused(`the ${requestInfoHeader} header names no account`);
  const account = parsed.data.acc;
  if (account !== request.tenantToken) {
    return refused(`the ${requestInfoHeader} header names account ${account}, the subject ${request.tenantToken}`);
  }
  const caller = tenants.get(account);
  if (caller === undefined) return refused(`account ${account} is not a tenant of this service`);
  return { ok: true, caller };
}

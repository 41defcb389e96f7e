// The HTTP layer the streams stand on, reduced to the three calls a reflector and discovery make.
// Both are cold Observables: subscribing sends the request, unsubscribing aborts it, so a
// reflector that gives up on a watch never leaves its connection behind. Bodies come back as
// parsed JSON values and are interpreted (and stripped) by the caller: the transport knows HTTP,
// not Kubernetes.
import type { Observable } from "rxjs";

export interface KubeRequest {
  /** Absolute API path, e.g. `/apis/apps/v1/namespaces/payments/deployments`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** Accept header; `application/json` when absent. */
  accept?: string;
}

/**
 * A piece of a list's answer, in order: the items one piece of the body completed, each parsed on
 * its own (its `metadata.managedFields` dropped), then, last, the list without its items
 * (`items` is `[]`, or as sent when it was not an array).
 */
export type ListPart = { readonly items: readonly unknown[] } | { readonly envelope: unknown };

export interface KubeTransport {
  /** One JSON body, then completion. Non-2xx answers and network failures error with KubeRequestError. */
  getJson(request: KubeRequest): Observable<unknown>;
  /**
   * A list (a GET of a collection, `{"metadata":{...},"items":[...]}`) as its body arrives, so no
   * page of 500 pods is parsed in one step; then completion. Errors as getJson's.
   */
  list(request: KubeRequest): Observable<ListPart>;
  /**
   * A watch (the caller puts `watch=true` in the query): one parsed JSON value per line of the
   * response, completion when the server ends the response, KubeRequestError on failure.
   */
  watch(request: KubeRequest): Observable<unknown>;
}

/**
 * A request the API server refused or that never reached it. `status` is the HTTP status, or the
 * `code` of a Status object a watch sent as an ERROR event; absent for network failures.
 */
export class KubeRequestError extends Error {
  override readonly name = "KubeRequestError";
  readonly status: number | undefined;
  /** The Status object's CamelCase reason (`Expired`, `Forbidden`, `NotFound`), when the server sent one. */
  readonly reason: string | undefined;
  /** The Status object's message, the server's own words without the request in front, when it sent one. */
  readonly statusMessage: string | undefined;

  constructor(message: string, details: { status?: number; reason?: string; statusMessage?: string; cause?: unknown } = {}) {
    super(message, { cause: details.cause });
    this.status = details.status;
    this.reason = details.reason;
    this.statusMessage = details.statusMessage;
  }
}

/** The resourceVersion a reflector holds is older than the server keeps: only a relist recovers. */
export function isGone(error: unknown): boolean {
  return error instanceof KubeRequestError && error.status === 410;
}

/**
 * A Kubernetes Status object (the body of an error answer or of a watch ERROR event) as an error.
 * Anything that is not a Status still yields an error carrying the HTTP status it came with.
 */
export function statusError(body: unknown, context: string, httpStatus?: number): KubeRequestError {
  const status = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof status.code === "number" ? status.code : httpStatus;
  const reason = typeof status.reason === "string" ? status.reason : undefined;
  const statusMessage = typeof status.message === "string" ? status.message : undefined;
  return new KubeRequestError(`${context}: ${code ?? "error"}${reason ? ` ${reason}` : ""}: ${statusMessage ?? "no Status in the answer"}`, {
    status: code,
    reason,
    statusMessage,
  });
}

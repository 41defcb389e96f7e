// What an apply tool can be told, as types it can branch on with instanceof (never on message
// text). The CLI maps them to its exit codes: rejected and conflict are bad input (2), unavailable
// is "no observer or NATS unreachable" (3), and so is quota (retry later: nothing was started).
import { describeIssues } from "../../verdicts/contract/validation.js";
import type { ErrorReply, FieldIssue } from "../../verdicts/contract/schemas.js";

/** NATS is unreachable, no stagewatch service answers, or it answered `unavailable`. */
export class ObserverUnavailableError extends Error {
  override readonly name = "ObserverUnavailableError";
}

/**
 * The request is not valid (`invalid_request`), too large (`too_large`), or asks for what the
 * caller's tenant may not observe or the server did not identify the caller (`forbidden`);
 * `issues` name the fields (the resource, or `(caller)`). Sending it again will not help.
 */
export class ObservationRejectedError extends Error {
  override readonly name = "ObservationRejectedError";
  constructor(
    readonly code: "invalid_request" | "too_large" | "forbidden",
    message: string,
    readonly issues: readonly FieldIssue[],
  ) {
    super(issues.length > 0 ? `${message}: ${describeIssues(issues)}` : message);
  }
}

/**
 * The service refused the request at one of its limits (`quota`: observations in flight, requests
 * a second); the message names the limit. Retryable: nothing was started.
 */
export class ObserverQuotaError extends Error {
  override readonly name = "ObserverQuotaError";
  readonly retryable = true;
}

/** The idempotency key is already taken by an observation of other content. */
export class ObservationConflictError extends Error {
  override readonly name = "ObservationConflictError";
}

/** The service failed on its side (`internal`); the details are in its log, not on the wire. */
export class ObserverInternalError extends Error {
  override readonly name = "ObserverInternalError";
}

/**
 * An answer to `get` or `cancel` failed verification (with `verifyKey`): unsigned, signed by a key
 * not trusted, tampered with, or about another observation. Someone other than the service
 * answered, or the service signs with a key the client was not given; the answer is not used.
 */
export class VerdictVerificationError extends Error {
  override readonly name = "VerdictVerificationError";
}

export type ObserverError = ObserverUnavailableError | ObserverQuotaError | ObservationRejectedError | ObservationConflictError | ObserverInternalError | VerdictVerificationError;

/** The typed error for an error reply; `not_found` is not an error to callers (they get undefined). */
export function errorFromReply(error: ErrorReply["error"]): ObserverError {
  switch (error.code) {
    case "invalid_request":
    case "too_large":
    case "forbidden":
      return new ObservationRejectedError(error.code, error.message, error.issues);
    case "conflict":
      return new ObservationConflictError(error.message);
    case "unavailable":
      return new ObserverUnavailableError(error.message);
    case "quota":
      return new ObserverQuotaError(error.message);
    case "not_found":
    case "internal":
      return new ObserverInternalError(error.message);
  }
}

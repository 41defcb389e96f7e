import { expect, it } from "vitest";
import type { ErrorCode } from "../../verdicts/contract/schemas.js";
import {
  errorFromReply,
  ObservationConflictError,
  ObservationRejectedError,
  ObserverInternalError,
  ObserverUnavailableError,
} from "./clientErrors.js";

const cases: [ErrorCode, abstract new (...args: never[]) => Error][] = [
  ["invalid_request", ObservationRejectedError],
  ["too_large", ObservationRejectedError],
  ["conflict", ObservationConflictError],
  ["unavailable", ObserverUnavailableError],
  ["internal", ObserverInternalError],
  ["not_found", ObserverInternalError],
];

it.each(cases)("%s becomes %o", (code, type) => {
  const error = errorFromReply({ code, message: "refused", issues: [] });
  expect(error).toBeInstanceOf(type);
  expect(error.name).toBe(type.name);
});

it("a rejection carries its issues and names them in its message", () => {
  const issues = [
    { path: "resources[2].name", message: "required" },
    { path: "require", message: "must be one of applied, bootstrapped, healthy" },
  ];
  const error = errorFromReply({ code: "invalid_request", message: "invalid observation request", issues });
  expect(error).toBeInstanceOf(ObservationRejectedError);
  expect((error as ObservationRejectedError).issues).toEqual(issues);
  expect(error.message).toBe(
    "invalid observation request: resources[2].name: required; require: must be one of applied, bootstrapped, healthy",
  );
});

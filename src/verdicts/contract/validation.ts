// Turns zod issues into the field-named errors of the wire contract: `resources[2].name: required`.
import type { z } from "zod";
import type { FieldIssue } from "./schemas.js";

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: FieldIssue[] };

/** `["resources", 2, "name"]` -> `resources[2].name`; the root is `(body)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? "(body)" : out;
}

// A missing field reads "required", not zod's "expected string, received undefined".
const errorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "invalid_type" && issue.input === undefined) return "required";
  return undefined;
};

export function parseWith<S extends z.ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(input, { error: errorMap });
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    // One issue per unknown key, at the key's own path: `resources[0].nmae: unknown field`.
    issues: result.error.issues.flatMap((issue) =>
      issue.code === "unrecognized_keys"
        ? issue.keys.map((key) => ({ path: formatPath([...issue.path, key]), message: "unknown field" }))
        : [{ path: formatPath(issue.path), message: issue.message }],
    ),
  };
}

export function describeIssues(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}

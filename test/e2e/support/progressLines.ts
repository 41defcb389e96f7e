/**
 * `observe --progress json`'s stderr read as a CI system reads it: every line one JSON object, each
 * checked against the checked-in schema/json/ProgressLine.json by a JSON Schema validator (Ajv), not
 * by the zod schema it was generated from, so a line the published schema refuses fails the test.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import type { ProgressLine } from "../../../src/verdicts/contract/schemas.ts";

const schemaDir = fileURLToPath(new URL("../../../schema/json/", import.meta.url));

let validator: ReturnType<Ajv["compile"]> | undefined;

function progressLineValidator() {
  if (validator) return validator;
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const file of readdirSync(schemaDir)) ajv.addSchema(JSON.parse(readFileSync(`${schemaDir}${file}`, "utf8")) as object);
  const check = ajv.getSchema("ProgressLine.json");
  if (!check) throw new Error(`${schemaDir}ProgressLine.json not found`);
  return (validator = check);
}

/** Each line of `stderr`, parsed and valid against ProgressLine.json; throws naming the first line that is not. */
export function progressLines(stderr: string): ProgressLine[] {
  const check = progressLineValidator();
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line, index) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`stderr line ${index + 1} is not JSON: ${line}`);
      }
      if (!check(parsed)) throw new Error(`stderr line ${index + 1} is not a ProgressLine (${(check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join("; ")}): ${line}`);
      return parsed as ProgressLine;
    });
}

// What `schema/` holds, as generated from the code: one JSON Schema file per body, and the AsyncAPI
// document. test/unit/contract.test.ts fails when the checked-in files differ;
// `./dev.sh contract:update` rewrites them.
import { readFileSync } from "node:fs";
import { stringify } from "yaml";
import { asyncApiDocument } from "./asyncapi.ts";
import { jsonSchemas } from "./jsonSchemas.ts";

const packageVersion = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Path under `schema/` -> text. */
export function contractFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, schema] of Object.entries(jsonSchemas((other) => `${other}.json`))) {
    files.set(`json/${name}.json`, `${JSON.stringify(schema, null, 2)}\n`);
  }
  const header = "# Generated from the code by `./dev.sh contract:update` (scripts/contract): do not edit by hand.\n";
  files.set("asyncapi.yaml", header + stringify(asyncApiDocument(packageVersion), { lineWidth: 0, aliasDuplicateObjects: false }));
  return files;
}

import { readdirSync } from "node:fs";
import { libraryEntryFor } from "../src/verdicts/index.ts";
const root = "/tmp/argo/resource_customizations";
const missing: string[] = [];
let total = 0;
for (const group of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) for (const kind of readdirSync(`${root}/${group}`, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) {
  total++;
  const g = group.replace(/^_/, "x");
  if (!readdirSync(`${root}/${group}/${kind}`).includes("health.lua")) { total--; continue; } const k = kind === "_" ? "Anything" : kind;
  if (!libraryEntryFor(`${g}/${k}`)) missing.push(`${group}/${kind}`);
}
console.log(total, "argo entries; not in the library:", missing);

// The README's "How each kind is judged" names every classified kind, in the class the code gives it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtInKinds } from "../../src/verdicts/index.js";

const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const section = readme.slice(readme.indexOf("## How each kind is judged"), readme.indexOf("**The fixture corpus.**"));
const parts = {
  ruled: section.slice(0, section.indexOf("Existence-only (")),
  existence: section.slice(section.indexOf("Existence-only ("), section.indexOf("Generic by design (")),
  generic: section.slice(section.indexOf("Generic by design (")),
};

describe("README kind list", () => {
  it.each([...builtInKinds])("%s is listed under its class", (kind, { judged }) => {
    expect(parts[judged]).toContain(`\`${kind}\``);
  });
});

// docs/user/kinds.md ("How each kind is judged") names every classified kind, in the class the code
// gives it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { builtInKinds } from "../../src/verdicts/index.js";

const page = readFileSync(new URL("../../docs/user/kinds.md", import.meta.url), "utf8");
const section = page.slice(page.indexOf("# How each kind is judged"));
const parts = {
  ruled: section.slice(0, section.indexOf("Existence-only (")),
  existence: section.slice(section.indexOf("Existence-only ("), section.indexOf("Generic by design (")),
  generic: section.slice(section.indexOf("Generic by design (")),
};

describe("docs/user/kinds.md kind list", () => {
  it.each([...builtInKinds])("%s is listed under its class", (kind, { judged }) => {
    expect(parts[judged]).toContain(`\`${kind}\``);
  });
});

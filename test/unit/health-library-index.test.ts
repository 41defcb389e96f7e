// The health library's index is what its files generate: src/verdicts/library/entries.ts is
// compared with scripts/healthLibrary's output (a drift fails here; `npm run health:update`
// rewrites it).
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";
import { generatedIndex } from "../../scripts/healthLibrary/files.ts";

test("src/verdicts/library/entries.ts is generated from health/", async () => {
  await expect(generatedIndex()).toMatchFileSnapshot(fileURLToPath(new URL("../../src/verdicts/library/entries.ts", import.meta.url)));
});

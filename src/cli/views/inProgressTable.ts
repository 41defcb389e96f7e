// `stagewatch list` output: one row per observation in progress, as kubectl lists objects, and the
// same facts as JSON (`-o json`, a `{items: [...]}` list as kubectl's).
import type { InProgressItem } from "../../verdicts/contract/schemas.js";
import { formatDuration } from "../../verdicts/text/text.js";
import { formatTable, usuallyCell } from "./verdictTable.js";

/** A deadline already passed shows `0s` left: its replica is gone and the adopter will time it out. */
export function inProgressTable(items: readonly InProgressItem[], nowMs: number): string {
  return formatTable(
    ["OBSERVATION", "DEPLOYMENT", "KEY", "REQUIRED", "REACHED", "AGE", "USUALLY", "LEFT", "OWNER"],
    items.map((item) => [
      item.observationId,
      item.deployment,
      item.key,
      item.required,
      item.reached,
      formatDuration(nowMs - Date.parse(item.startedAt)),
      usuallyCell(item.expectation),
      formatDuration(Date.parse(item.deadline) - nowMs),
      item.owner.lease === "held" ? item.owner.replica : `${item.owner.replica} (${item.owner.lease})`,
    ]),
  );
}

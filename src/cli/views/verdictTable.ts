// `stagewatch get` and `cancel` print an observation as kubectl prints objects: upper-case column
// headers, columns padded to the widest cell with three spaces between them, and `-` for nothing.
import { describeResource } from "../../verdicts/contract/kinds.js";
import { expectationOf, formatRolloutTime } from "../../verdicts/history/history.js";
import type { Expectation, ObservationVerdict } from "../../verdicts/contract/schemas.js";
import { formatDuration } from "../../verdicts/text/text.js";
import { failureLogText } from "./failureLogText.js";

/** Columns as kubectl's printer lays them out; the last column is not padded. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("   ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n") + "\n";
}

/** The USUALLY column: the median and 90th percentile of the deployment's earlier rollouts to the required stage, `-` without any. */
export function usuallyCell(expectation: Expectation | undefined): string {
  return expectation ? `${formatRolloutTime(expectation.medianSeconds)} (90% ${formatRolloutTime(expectation.p90Seconds)}, n=${expectation.samples})` : "-";
}

const oneLine = (text: string | undefined) => (text ? text.replace(/\s*\n\s*/g, "; ") : "-");

/**
 * The observation in one row (age since it started; time left while in progress, else when it
 * was decided), its resources one a row, then the verdict message as the service wrote it.
 */
export function verdictTable(verdict: ObservationVerdict, nowMs: number): string {
  const started = Date.parse(verdict.startedAt);
  const decided = verdict.decidedAt === undefined ? undefined : Date.parse(verdict.decidedAt);
  const left = verdict.outcome === "in_progress" ? formatDuration(Date.parse(verdict.deadline) - nowMs) : "-";
  const summary = formatTable(
    ["OBSERVATION", "DEPLOYMENT", "KEY", "REQUIRED", "REACHED", "OUTCOME", "AGE", "USUALLY", "LEFT", "DECIDED"],
    [
      [
        verdict.observationId,
        verdict.deployment,
        verdict.key,
        verdict.required,
        verdict.reached,
        verdict.outcome,
        formatDuration(nowMs - started),
        usuallyCell(expectationOf(verdict.history, verdict.required)),
        left,
        decided === undefined ? "-" : `${formatDuration(nowMs - decided)} ago`,
      ],
    ],
  );
  const resources = formatTable(
    ["RESOURCE", "STATE", "REASON", "MESSAGE"],
    verdict.resources.map((r) => [describeResource(r.identity), r.state, r.reason ?? "-", oneLine(r.message)]),
  );
  const expectation = expectationOf(verdict.history, verdict.required);
  const history = verdict.history?.comparison?.message ?? (expectation && `to ${verdict.required}, ${expectation.message}`);
  return `${summary}\n${resources}\n${verdict.message}\n${history ? `history: ${history}\n` : ""}${failureLogText(verdict.failure)}`;
}

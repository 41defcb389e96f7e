// One analysis's measurements through the window, as Argo Rollouts counts an AnalysisRun's: each
// measurement succeeds (the value meets the success condition), fails (it does not), or is
// inconclusive (no value: an empty result, NaN). One failure more than `failureLimit`, or one
// inconclusive more than `inconclusiveLimit`, fails the check at once; `count` measurements within
// the limits pass it. Pure: the engine measures on its timer and hands each result in.
import type { AnalysisTemplate } from "./analysisTemplates.js";
import { failedComparison, meets, parseCondition, type Condition } from "./condition.js";

/** A query's answer: a number, or why there is none. */
export type MeasuredValue = { readonly value: number } | { readonly inconclusive: string };

export interface AnalysisTally {
  readonly taken: number;
  readonly failed: number;
  readonly inconclusive: number;
  /** The last measurement, as the live view and a timeout show it. */
  readonly last?: MeasuredValue | undefined;
  /** The last failing value and why, for the failure line. */
  readonly lastFailure?: string | undefined;
}

export const noMeasurements: AnalysisTally = { taken: 0, failed: 0, inconclusive: 0 };

export type AnalysisStatus = { readonly status: "running" | "passed" } | { readonly status: "failed"; readonly reason: "AnalysisFailed" | "AnalysisInconclusive"; readonly message: string };

function conditionOf(template: AnalysisTemplate): Condition {
  const parsed = parseCondition(template.successCondition);
  // AnalysisTemplate refuses a file whose condition does not parse.
  if (!parsed.ok) throw new RangeError(`analysis ${template.name}: unparsable successCondition`);
  return parsed.condition;
}

export function addMeasurement(template: AnalysisTemplate, tally: AnalysisTally, measured: MeasuredValue): AnalysisTally {
  const taken = tally.taken + 1;
  if ("inconclusive" in measured || Number.isNaN(measured.value)) {
    return { ...tally, taken, inconclusive: tally.inconclusive + 1, last: measured };
  }
  const condition = conditionOf(template);
  if (meets(condition, measured.value)) return { ...tally, taken, last: measured };
  return { ...tally, taken, failed: tally.failed + 1, last: measured, lastFailure: failedComparison(condition, measured.value) };
}

/** `analysis error-rate failed 3 of 5 measurements (0.042 >= 0.01)` once past a limit; passed after `count`. */
export function analysisStatus(template: AnalysisTemplate, tally: AnalysisTally): AnalysisStatus {
  if (tally.failed > template.failureLimit) {
    return { status: "failed", reason: "AnalysisFailed", message: `analysis ${template.name} failed ${tally.failed} of ${template.count} measurements (${tally.lastFailure ?? "no value"})` };
  }
  if (tally.inconclusive > template.inconclusiveLimit) {
    const why = tally.last && "inconclusive" in tally.last ? tally.last.inconclusive : "no value";
    return { status: "failed", reason: "AnalysisInconclusive", message: `analysis ${template.name} was inconclusive ${tally.inconclusive} of ${template.count} measurements (${why})` };
  }
  return { status: tally.taken >= template.count ? "passed" : "running" };
}

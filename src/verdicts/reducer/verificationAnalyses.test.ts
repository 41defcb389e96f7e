// The window's metric checks on the reducer's clock: measurements handed in as the engine would
// take them (every 20 s from healthy), the window's end gated on every analysis having passed.
import { describe, expect, it } from "vitest";
import { keys, observationRequest, seconds, startedAtMs } from "../../../test/fixtures/observation.js";
import { parseWith } from "../contract/validation.js";
import { AnalysisTemplate } from "../analysis/analysisTemplates.js";
import { settled } from "../rules/reading.js";
import { advanceClock, markCachesSynced, nextWakeAt, recordMeasurement, recordReading, toVerdict } from "./observation.js";
import { startObservation, type ObservationState } from "./observationState.js";

const parsed = parseWith(AnalysisTemplate, {
  name: "error-rate",
  args: [{ name: "route", default: "/" }],
  query: 'sum(rate(errors_total{namespace="{{namespace}}", route="{{args.route}}"}[1m]))',
  successCondition: "result < 0.01",
  intervalSeconds: 20,
  count: 3,
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
const templates = new Map([["error-rate", parsed.value]]);
const verify = { windowSeconds: 60, analyses: [{ name: "error-rate" }] };

/** Healthy at 10:00:05 under a 60 s window with error-rate: measurements due at 5, 25 and 45 s. */
function healthy(): ObservationState {
  const started = startObservation({ observationId: "obs-1", request: observationRequest({ require: "verified", verify }), startedAtMs, deadlineMs: seconds(300), analysisTemplates: templates });
  if (!started.ok) throw new Error(JSON.stringify(started.issues));
  let state = markCachesSynced(started.value, seconds(1)).state;
  for (const key of [keys.migrate, keys.config, keys.api]) state = recordReading(state, key, { uid: key, generation: 7, reading: settled("done") }, seconds(5)).state;
  return state;
}

function measure(state: ObservationState, values: readonly number[], firstAt = 5): ObservationState {
  return values.reduce((s, value, i) => recordMeasurement(s, "error-rate", { value }, seconds(firstAt + 20 * i)).state, state);
}

describe("analyses in the verification window", () => {
  it("verified at the window's end once every measurement passed", () => {
    const state = measure(healthy(), [0.001, 0.002, 0.0]);
    expect(nextWakeAt(state)).toBe(seconds(65));
    const done = advanceClock(state, seconds(65));
    expect(toVerdict(done.state)).toMatchObject({
      outcome: "succeeded",
      reached: "verified",
      decidedAt: "2026-11-29T10:01:05.000Z",
      verification: { analyses: [{ name: "error-rate", status: "passed", taken: 3, count: 3, failed: 0, inconclusive: 0, last: 0 }] },
    });
    expect(toVerdict(done.state).message).toContain("; analysis error-rate: 3 of 3 measurements, 0 failed, last 0");
  });

  it("a measurement past the failure limit fails at once, with the value that failed", () => {
    const failed = measure(healthy(), [0.001, 0.042]);
    expect(toVerdict(failed)).toMatchObject({
      outcome: "failed",
      message: "deployment payments cannot reach verified: analysis error-rate failed 1 of 3 measurements (0.042 >= 0.01)",
      failure: { stage: "verified", reason: "AnalysisFailed" },
      decidedAt: "2026-11-29T10:00:25.000Z",
    });
  });

  it("the window's end waits for the last measurement, and no timer spins meanwhile", () => {
    const two = measure(healthy(), [0.001, 0.002]);
    expect(nextWakeAt(two)).toBe(seconds(300));
    expect(advanceClock(two, seconds(70)).state.outcome).toBe("in_progress");
    const late = recordMeasurement(advanceClock(two, seconds(70)).state, "error-rate", { value: 0.003 }, seconds(72));
    expect(toVerdict(late.state)).toMatchObject({ outcome: "succeeded", reached: "verified", decidedAt: "2026-11-29T10:01:12.000Z" });
  });

  it("a timeout inside the window names each analysis's measurements so far", () => {
    const state = measure(healthy(), [0.001]);
    const timedOut = advanceClock(state, seconds(300));
    expect(toVerdict(timedOut.state).message).toMatch(/; analysis error-rate: 1 of 3 measurements, 0 failed, last 0\.001 so far$/);
  });

  it.each([
    ["an analysis the service does not have", { windowSeconds: 60, analyses: [{ name: "latency" }] }, [{ path: "verify.analyses[0].name", message: "no analysis 'latency' (the service's: error-rate)" }]],
    ["an argument the analysis does not declare", { windowSeconds: 60, analyses: [{ name: "error-rate", args: { namespace: "other" } }] }, [{ path: "verify.analyses[0].args.namespace", message: "analysis error-rate declares no argument 'namespace'" }]],
    ["a window its measurements do not fit in", { windowSeconds: 40, analyses: [{ name: "error-rate" }] }, [{ path: "verify.windowSeconds", message: "must be longer than analysis error-rate's 3 measurements 20s apart take (40s)" }]],
  ])("refuses %s, naming the field", (_what, verifySettings, issues) => {
    const started = startObservation({ observationId: "obs-1", request: observationRequest({ require: "verified", verify: verifySettings }), startedAtMs, deadlineMs: seconds(300), analysisTemplates: templates });
    expect(started).toEqual({ ok: false, issues });
  });

  it("analyses over resources with no workload among them are refused: nothing gives the queries a namespace and revision", () => {
    const request = observationRequest({ require: "verified", verify, resources: [{ apiVersion: "v1", kind: "ConfigMap", name: "api-config" }] });
    const started = startObservation({ observationId: "obs-1", request, startedAtMs, deadlineMs: seconds(300), analysisTemplates: templates });
    expect(started).toMatchObject({ ok: false, issues: [{ path: "verify.analyses", message: expect.stringContaining("need a workload among the resources") }] });
  });

  it("without the service's templates, an analysis is unknown", () => {
    const started = startObservation({ observationId: "obs-1", request: observationRequest({ require: "verified", verify }), startedAtMs, deadlineMs: seconds(300) });
    expect(started).toEqual({ ok: false, issues: [{ path: "verify.analyses[0].name", message: "no analysis 'error-rate' (the service's: none: the service has no --analyses)" }] });
  });
});


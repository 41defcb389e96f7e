// The verification window of `require: verified` (docs/design/contract.md, "verified"): once
// `healthy` is reached the observation goes on, inside the same budget, for `verify.windowSeconds`,
// and reaches `verified` when the window ends with no problem seen in the new revision's pods
// (verification/soakChecks.ts says what a problem is). The first problem fails the stage at once;
// the budget ending inside the window times it out, naming the stage and what it had read.
//
// The window's end is a timer like the budget (nextWakeAt), not a sweep: between readings nothing
// is read, and the reducer decides at the end from what it was told. What the window remembers
// besides its start is small and in memory only (the pods created in it and seen ready); an
// adopter resumes the window from the verdict's `verification` and starts that memory afresh.
import type { KubeObject } from "../../kube/objects.js";
import type { ClusterWarning } from "../../kube/warnings.js";
import { maxVerificationPods, type Failure, type ResourceIdentity, type Verification } from "../contract/schemas.js";
import { podsOf, revisionOf } from "../evidence/workloadPods.js";
import type { OwnedObjects } from "../rules/input.js";
import { formatDuration, plural } from "../text/text.js";
import { readSoak, type SoakProblem } from "../verification/soakChecks.js";
import { renderQuery, resolveArgs, type AnalysisTemplate } from "../analysis/analysisTemplates.js";
import { addMeasurement, analysisStatus, noMeasurements, type AnalysisTally, type MeasuredValue } from "../analysis/measurements.js";
import type { FieldIssue, VerifySettings } from "../contract/schemas.js";
import type { Parsed } from "../contract/validation.js";

/** A metric check the request chose, with its template (the service's) and the request's arguments, defaults applied. */
export interface PlannedAnalysis {
  readonly template: AnalysisTemplate;
  readonly args: Readonly<Record<string, string>>;
}

/** What the request asked of the window (its `verify`), kept in the state from the start. */
export interface VerifyPlan {
  readonly windowMs: number;
  readonly failOn: ReadonlySet<string>;
  readonly analyses: readonly PlannedAnalysis[];
}

/**
 * The request's `verify` against the service's templates: every analysis named must exist, get
 * only the arguments it declares, and fit its measurements inside the window (the last one at
 * `(count - 1) x interval` after healthy, before the window ends). Analyses need a workload among
 * the resources (`ownsPods`): its namespace and new revision are what their queries select.
 */
export function planVerify(verify: VerifySettings, templates: ReadonlyMap<string, AnalysisTemplate>, ownsPods: boolean): Parsed<VerifyPlan> {
  const issues: FieldIssue[] = [];
  if (verify.analyses.length > 0 && !ownsPods) {
    issues.push({ path: "verify.analyses", message: "need a workload among the resources (a Deployment, StatefulSet, DaemonSet, Job or Pod): its namespace and new revision are what the queries select" });
  }
  const analyses = verify.analyses.flatMap(({ name, args }, index): PlannedAnalysis[] => {
    const template = templates.get(name);
    if (!template) {
      const known = [...templates.keys()].join(", ") || "none: the service has no --analyses";
      issues.push({ path: `verify.analyses[${index}].name`, message: `no analysis '${name}' (the service's: ${known})` });
      return [];
    }
    const resolved = resolveArgs(template, args);
    if (!resolved.ok) {
      for (const problem of resolved.problems) issues.push({ path: `verify.analyses[${index}].args.${problem.arg}`, message: problem.message });
      return [];
    }
    if ((template.count - 1) * template.intervalSeconds >= verify.windowSeconds) {
      issues.push({
        path: "verify.windowSeconds",
        message: `must be longer than analysis ${name}'s ${template.count} measurements ${template.intervalSeconds}s apart take (${(template.count - 1) * template.intervalSeconds}s)`,
      });
    }
    return [{ template, args: resolved.args }];
  });
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { windowMs: verify.windowSeconds * 1000, failOn: new Set(verify.failOn), analyses } };
}

/** The window, from the moment `healthy` was reached. */
export interface OpenWindow {
  readonly startedAtMs: number;
  readonly endsAtMs: number;
  readonly seenReady: ReadonlySet<string>;
  /** The pods read in the window, by the declared resource (identity key) that owns them. */
  readonly podsByResource: ReadonlyMap<string, readonly string[]>;
  /** Each planned analysis's measurements so far, by name. */
  readonly tallies: ReadonlyMap<string, AnalysisTally>;
  /**
   * What the analyses' queries select besides the deployment: the namespace and new revision of the
   * first workload read in the window. Until it is read (an adopter's caches syncing), no measurement
   * is taken.
   */
  readonly subject?: { readonly namespace: string; readonly revision: string } | undefined;
}

export function openWindow(plan: VerifyPlan, startedAtMs: number): OpenWindow {
  return { startedAtMs, endsAtMs: startedAtMs + plan.windowMs, seenReady: new Set(), podsByResource: new Map(), tallies: new Map(plan.analyses.map(({ template }) => [template.name, noMeasurements])) };
}

/**
 * A window resumed from a recorded verdict (an adopter carries on with the same end). The
 * measurements recorded count: an adopter takes only the ones still to come.
 */
export function resumedWindow(plan: VerifyPlan, recorded: Verification): OpenWindow {
  const window = openWindow(plan, Date.parse(recorded.startedAt));
  const tallies = new Map(window.tallies);
  for (const { name, taken, failed, inconclusive, last } of recorded.analyses ?? []) {
    if (tallies.has(name)) tallies.set(name, { taken, failed, inconclusive, ...(last !== undefined && { last: { value: last } }) });
  }
  return { ...window, endsAtMs: Date.parse(recorded.endsAt), tallies };
}

/** Every analysis took its measurements within its limits (true without analyses). */
export function analysesPassed(plan: VerifyPlan, window: OpenWindow): boolean {
  return plan.analyses.every(({ template }) => analysisStatus(template, window.tallies.get(template.name) ?? noMeasurements).status === "passed");
}

export interface MeasuredWindow {
  readonly window: OpenWindow;
  /** The analysis failed with this measurement: its line (`analysis error-rate failed 3 of 5 measurements (0.042 >= 0.01)`). */
  readonly failure?: { readonly reason: string; readonly message: string } | undefined;
}

/** One measurement of the analysis `name` into the window; one of an analysis not planned, or already decided, changes nothing. */
export function measureIntoWindow(plan: VerifyPlan, window: OpenWindow, name: string, measured: MeasuredValue): MeasuredWindow {
  const planned = plan.analyses.find(({ template }) => template.name === name);
  const tally = window.tallies.get(name);
  if (!planned || !tally || analysisStatus(planned.template, tally).status !== "running") return { window };
  const next = addMeasurement(planned.template, tally, measured);
  const status = analysisStatus(planned.template, next);
  const updated = { ...window, tallies: new Map(window.tallies).set(name, next) };
  return status.status === "failed" ? { window: updated, failure: { reason: status.reason, message: status.message } } : { window: updated };
}

/** A settled workload read again in the window: the object, what it owns, the warnings about them. */
export interface SoakObject {
  readonly object: KubeObject;
  readonly owned: OwnedObjects | undefined;
  readonly warnings: readonly (ClusterWarning | undefined)[];
}

export interface WindowReading {
  readonly window: OpenWindow;
  readonly problem?: SoakProblem | undefined;
}

/** Reads one workload's pods into the window; kinds that own no pods change nothing. */
export function readIntoWindow(plan: VerifyPlan, window: OpenWindow, key: string, { object, owned, warnings }: SoakObject, nowMs: number): WindowReading {
  const pods = owned === undefined ? undefined : podsOf(object, owned);
  if (pods === undefined) return { window };
  const read = readSoak({ pods, workloadUid: object.metadata.uid, warnings, windowStartMs: window.startedAtMs, nowMs, failOn: plan.failOn, seenReady: window.seenReady });
  const podsByResource = new Map(window.podsByResource).set(key, read.pods);
  const revision = window.subject === undefined && plan.analyses.length > 0 && owned ? revisionOf(object, owned) : undefined;
  const subject = revision === undefined ? window.subject : { namespace: object.metadata.namespace ?? "", revision };
  return { window: { ...window, seenReady: read.seenReady, podsByResource, ...(subject && { subject }) }, problem: read.problem };
}

/** A measurement the engine is to take: which analysis, when, and the query it sends, rendered. */
export interface DueMeasurement {
  readonly name: string;
  readonly dueAtMs: number;
  readonly query: string;
}

/**
 * The next measurement of every analysis still running: the k-th (from 0) is due k intervals after
 * the window opened, so an adopter resuming the window takes the ones still to come on the same
 * schedule, and one already overdue at once. None until the window's subject is read.
 */
export function dueMeasurements(plan: VerifyPlan, window: OpenWindow, deployment: string): DueMeasurement[] {
  const { subject } = window;
  if (subject === undefined) return [];
  return plan.analyses.flatMap(({ template, args }) => {
    const tally = window.tallies.get(template.name) ?? noMeasurements;
    if (analysisStatus(template, tally).status !== "running") return [];
    const query = renderQuery(template, { namespace: subject.namespace, deployment, revision: subject.revision, args });
    return [{ name: template.name, dueAtMs: window.startedAtMs + tally.taken * template.intervalSeconds * 1000, query }];
  });
}

function watchedPods(window: OpenWindow): string[] {
  return [...new Set([...window.podsByResource.values()].flat())].toSorted();
}

/** Pods a verdict line names: a line stays a line with 1,000 replicas. */
const namedPodsInLine = 5;

export function verificationOf(plan: VerifyPlan, window: OpenWindow): Verification {
  return {
    windowSeconds: Math.round(plan.windowMs / 1000),
    startedAt: new Date(window.startedAtMs).toISOString(),
    endsAt: new Date(window.endsAtMs).toISOString(),
    pods: watchedPods(window).slice(0, maxVerificationPods),
    ...(plan.analyses.length > 0 && {
      analyses: plan.analyses.map(({ template }) => {
        const tally = window.tallies.get(template.name) ?? noMeasurements;
        const last = tally.last !== undefined && "value" in tally.last ? tally.last.value : undefined;
        const { taken, failed, inconclusive } = tally;
        return { name: template.name, status: analysisStatus(template, tally).status, taken, count: template.count, failed, inconclusive, ...(last !== undefined && { last }) };
      }),
    }),
  };
}

/** `pod api-7f9-x2 container api restarted (OOMKilled, exit code 137) 2m10s after healthy` */
export function problemLine(problem: SoakProblem, window: OpenWindow): string {
  const container = problem.container === undefined ? "" : ` container ${problem.container}`;
  return `${problem.subject}${container} ${problem.happened} ${formatDuration(problem.atMs - window.startedAtMs)} after healthy`;
}

export function problemFailure(problem: SoakProblem, window: OpenWindow, resource: ResourceIdentity): Failure {
  return { stage: "verified", resource, reason: problem.reason, message: problemLine(problem, window) };
}

/** The checks as they stood: what a timeout inside the window names. */
function checksSoFar(plan: VerifyPlan, window: OpenWindow): string {
  const pods = watchedPods(window);
  const warnings = [...plan.failOn].join(", ") || "none";
  const named = pods.length > namedPodsInLine ? `${pods.slice(0, namedPodsInLine).join(", ")} and ${pods.length - namedPodsInLine} more` : pods.join(", ");
  const read = pods.length === 0 ? "no pod of the new revision read since healthy" : `${plural(pods.length, "pod")} read (${named})`;
  const analyses = plan.analyses.map(({ template }) => {
    const tally = window.tallies.get(template.name) ?? noMeasurements;
    const last = tally.last === undefined ? "" : "value" in tally.last ? `, last ${tally.last.value}` : `, last inconclusive`;
    return `; analysis ${template.name}: ${tally.taken} of ${template.count} measurements, ${tally.failed} failed${last}`;
  });
  return `${read}: no restart, readiness flap, OOMKilled or Error termination, eviction or Warning (${warnings})${analyses.join("")}`;
}

/** The budget ran out inside the window: how far it got and what it had read. */
export function windowTimeoutDetail(plan: VerifyPlan, window: OpenWindow, deadlineMs: number): string {
  const ran = Math.max(0, deadlineMs - window.startedAtMs);
  return `the verification window ran ${formatDuration(ran)} of ${formatDuration(plan.windowMs)} after healthy; ${checksSoFar(plan, window)} so far`;
}

export function windowSuccessMessage(deployment: string, plan: VerifyPlan, window: OpenWindow): string {
  return `deployment ${deployment} reached verified: held ${formatDuration(plan.windowMs)} after healthy; ${checksSoFar(plan, window)}`;
}

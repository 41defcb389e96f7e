// What the live terminal view of `stagewatch observe` shows, as a pure function of what is known
// and the time: one line per resource (state, reason, the cluster's reading), the stages up to the
// required one, the time elapsed and the budget left. Like `kubectl rollout status` and kubedog,
// the block is redrawn in place; this file only says what it holds, progressViews.ts draws it.
import {
  describeResource,
  expectationOf,
  formatDuration,
  identityKey,
  stageRank,
  stages,
  type ObservationEvent,
  type ObservationVerdict,
  type ReachedStage,
  type ResourceState,
  type ResourceVerdict,
  type Stage,
  type Verification,
} from "../../verdicts/index.js";

export interface LiveState {
  readonly deployment: string;
  readonly observationId: string;
  readonly required: Stage;
  reached: ReachedStage;
  /** Declared resources by identity key, in the order the request named them (first seen). */
  readonly resources: Map<string, ResourceVerdict>;
  startedAtMs: number;
  deadlineMs: number;
  verdict?: ObservationVerdict;
  /** The last stall notice, until a resource moves again. */
  stalled?: string;
  /** How long the required stage usually takes this deployment (from its history), when it has one. */
  expectation?: string;
  /** With `--require verified`: the window the request asked for. */
  readonly verifyWindowMs?: number | undefined;
  /** When the verification window ends: from the `healthy` stage event, or the service's verdict. */
  windowEndsAtMs?: number;
  /** The window's metric checks as the last measurement (or the verdict) left them. */
  analyses?: Verification["analyses"];
}

/** `analysis error-rate: 2 of 5 measurements, 0 failed, last 0.003`: one check as the views show it. */
export function analysisText({ name, taken, count, failed, inconclusive, last, status }: NonNullable<Verification["analyses"]>[number]): string {
  const lastText = last === undefined ? "" : `, last ${last}`;
  const inconclusiveText = inconclusive > 0 ? `, ${inconclusive} inconclusive` : "";
  return `analysis ${name}: ${taken} of ${count} measurements, ${failed} failed${inconclusiveText}${lastText}${status === "running" ? "" : ` (${status})`}`;
}

export interface LiveStart {
  deployment: string;
  observationId: string;
  required: Stage;
  startedAtMs: number;
  deadlineMs: number;
  verifyWindowMs?: number | undefined;
}

export function startLiveState(start: LiveStart): LiveState {
  return { ...start, reached: "none", resources: new Map() };
}

/** Takes in the service's current verdict (`get`): the resolved identities and readings so far. */
export function applyVerdict(state: LiveState, verdict: ObservationVerdict): void {
  state.reached = verdict.reached;
  state.startedAtMs = Date.parse(verdict.startedAt);
  state.deadlineMs = Date.parse(verdict.deadline);
  for (const resource of verdict.resources) state.resources.set(identityKey(resource.identity), resource);
  const expectation = expectationOf(verdict.history, state.required);
  if (expectation) state.expectation = expectation.message;
  if (verdict.verification) {
    state.windowEndsAtMs = Date.parse(verdict.verification.endsAt);
    if (verdict.verification.analyses) state.analyses = verdict.verification.analyses;
  }
  if (verdict.outcome !== "in_progress") state.verdict = verdict;
}

export function applyEvent(state: LiveState, event: ObservationEvent): void {
  switch (event.type) {
    case "progress":
      state.resources.set(identityKey(event.resource.identity), event.resource);
      if (event.expectation) state.expectation = event.expectation.message;
      if (event.verification) {
        state.windowEndsAtMs = Date.parse(event.verification.endsAt);
        if (event.verification.analyses) state.analyses = event.verification.analyses;
      }
      delete state.stalled;
      return;
    case "stalled":
      state.stalled = event.message;
      return;
    case "stage":
      if (stageRank(event.stage) > stageRank(state.reached)) state.reached = event.stage;
      // The window opens when healthy is reached, on the service's clock (the event's time).
      if (event.stage === "healthy" && state.verifyWindowMs !== undefined) state.windowEndsAtMs ??= Date.parse(event.at) + state.verifyWindowMs;
      return;
    case "verdict":
      applyVerdict(state, event.verdict);
      return;
  }
}

/** How a piece of a line is shown on a colour terminal. */
export type Tone = "good" | "bad" | "waiting" | "dim" | "plain";

/** A line in pieces, so it can be cut to the terminal's width before colours are added. */
export type ScreenLine = readonly { text: string; tone: Tone }[];

const stateTone: Record<ResourceState, Tone> = { settled: "good", failed: "bad", pending: "waiting" };

export interface ScreenSize {
  columns: number;
  rows: number;
}

/**
 * The block for `nowMs`. Taller than the terminal, a block could not be redrawn in place (the
 * cursor cannot move above the screen's top), so settled resources then fold into one line, and
 * past that the list is cut with a count of what is not shown.
 */
export function renderScreen(state: LiveState, nowMs: number, size: ScreenSize): ScreenLine[] {
  const header = headerLine(state, nowMs);
  const stageLine = stagesLine(state);
  const resources = [...state.resources.values()];
  const nameWidth = Math.min(60, Math.max(0, ...resources.map((r) => describeResource(r.identity).length)));
  const room = Math.max(1, size.rows - 3);
  let rows = resources.map((r) => resourceLine(r, nameWidth));
  if (rows.length > room) {
    const settled = resources.filter((r) => r.state === "settled").length;
    rows = resources.filter((r) => r.state !== "settled").map((r) => resourceLine(r, nameWidth));
    if (settled > 0) rows.unshift([{ text: "settled ", tone: "good" }, { text: `${settled} resource${settled === 1 ? "" : "s"}`, tone: "plain" }]);
    if (rows.length > room) {
      const hidden = rows.length - (room - 1);
      rows = [...rows.slice(0, room - 1), [{ text: `... and ${hidden} more`, tone: "dim" }]];
    }
  }
  const stalled: ScreenLine[] = state.stalled && !state.verdict ? [[{ text: "stalled ", tone: "waiting" }, { text: state.stalled, tone: "plain" }]] : [];
  return [header, ...expectationLines(state), stageLine, ...windowLines(state, nowMs), ...stalled, ...rows].map((line) => fitLine(line, size.columns));
}

/** The verification window counting down, while it runs. */
function windowLines(state: LiveState, nowMs: number): ScreenLine[] {
  if (state.windowEndsAtMs === undefined || state.verdict || state.verifyWindowMs === undefined) return [];
  const left = Math.max(0, state.windowEndsAtMs - nowMs);
  return [
    [
      { text: "verify ", tone: "dim" },
      { text: `${formatDuration(left)} left of the ${formatDuration(state.verifyWindowMs)} window after healthy`, tone: "waiting" },
      { text: "   no restart, readiness flap, OOMKilled, eviction or failOn Warning so far", tone: "dim" },
    ],
    ...(state.analyses ?? []).map((analysis): ScreenLine => [
      { text: "check ", tone: "dim" },
      { text: analysisText(analysis), tone: analysis.status === "passed" ? "good" : analysis.status === "failed" ? "bad" : "waiting" },
    ]),
  ];
}

/** The history's word beside the elapsed time; once decided, how this rollout compared. */
function expectationLines(state: LiveState): ScreenLine[] {
  const comparison = state.verdict?.history?.comparison;
  if (comparison) return [[{ text: "history ", tone: "dim" }, { text: comparison.message, tone: "plain" }]];
  return state.expectation ? [[{ text: "history ", tone: "dim" }, { text: `to ${state.required}: ${state.expectation}`, tone: "plain" }]] : [];
}

function headerLine(state: LiveState, nowMs: number): ScreenLine {
  const { verdict } = state;
  if (verdict !== undefined) {
    const took = Date.parse(verdict.decidedAt ?? verdict.deadline) - state.startedAtMs;
    const tone: Tone = verdict.outcome === "succeeded" ? "good" : "bad";
    return [
      { text: `deployment ${state.deployment} `, tone: "plain" },
      { text: verdict.outcome.replace("_", " "), tone },
      { text: `: reached ${verdict.reached} of ${state.required} in ${formatDuration(took)}`, tone: "plain" },
    ];
  }
  return [
    { text: `deployment ${state.deployment}: `, tone: "plain" },
    { text: `reached ${state.reached} of ${state.required}`, tone: "plain" },
    { text: `   ${formatDuration(nowMs - state.startedAtMs)} elapsed, ${formatDuration(state.deadlineMs - nowMs)} left`, tone: "dim" },
  ];
}

function stagesLine(state: LiveState): ScreenLine {
  const wanted = stages.slice(0, stages.indexOf(state.required) + 1);
  const reached = stageRank(state.reached);
  const failed = state.verdict !== undefined && state.verdict.outcome !== "succeeded";
  const pieces: { text: string; tone: Tone }[] = [{ text: "stages ", tone: "dim" }];
  wanted.forEach((stage, index) => {
    const done = index < reached;
    const mark = done ? "✓" : failed && index === reached ? "✗" : "…";
    pieces.push({ text: ` ${stage} ${mark} `, tone: done ? "good" : failed && index === reached ? "bad" : "waiting" });
  });
  return pieces;
}

function resourceLine(resource: ResourceVerdict, nameWidth: number): ScreenLine {
  const { state, reason, message } = resource;
  const detail = [reason, message].filter(Boolean).join(": ");
  return [
    { text: state.padEnd(8), tone: stateTone[state] },
    { text: describeResource(resource.identity).padEnd(nameWidth), tone: "plain" },
    { text: detail ? `  ${detail}` : "", tone: state === "failed" ? "bad" : "dim" },
  ];
}

/** Cut to `columns - 1` characters, so no line wraps (a wrapped line would break the redraw). */
function fitLine(line: ScreenLine, columns: number): ScreenLine {
  let room = Math.max(1, columns - 1);
  const fitted: { text: string; tone: Tone }[] = [];
  for (const piece of line) {
    // Messages may span lines (a timeout lists one resource a line); the view keeps one line each.
    const text = piece.text.replace(/\s*\n\s*/g, " ");
    if (room <= 0) break;
    fitted.push({ ...piece, text: text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text });
    room -= Math.min(text.length, room);
  }
  return fitted;
}

/** The text of a line, without colours. */
export function lineText(line: ScreenLine): string {
  return line.map((piece) => piece.text).join("");
}

// How `stagewatch observe` shows progress on stderr. On a terminal, a block redrawn in place
// (liveScreen.ts) that stays on screen when the verdict comes; anywhere else (a CI log, a file, a
// pipe), one plain line per change and never a control character, so logs stay greppable.
import { describeResource, expectationOf, formatDuration, stagesBetween, type ObservationEvent, type ObservationVerdict, type ReachedStage, type ResourceVerdict } from "../../verdicts/index.js";
import { analysisText, applyEvent, applyVerdict, renderScreen, startLiveState, type LiveStart, type ScreenLine, type Tone } from "./liveScreen.js";

export interface ProgressView {
  event(event: ObservationEvent): void;
  /** The verdict is in: the last drawing, then nothing more is written. */
  finish(verdict: ObservationVerdict): void;
}

export interface ViewClock {
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export const systemClock: ViewClock = {
  now: () => Date.now(),
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    // The redraw never keeps the process alive on its own.
    timer.unref();
    return () => clearInterval(timer);
  },
};

function resourceLine({ identity, state, reason, message }: ResourceVerdict): string {
  return `${describeResource(identity)}: ${state}${reason ? ` (${reason})` : ""}${message ? `: ${message}` : ""}`;
}

function plainLine(event: ObservationEvent): string | undefined {
  switch (event.type) {
    case "progress":
      // A measurement's event carries the window: its checks, not the workload's unchanged line.
      return event.verification?.analyses ? event.verification.analyses.map(analysisText).join("; ") : resourceLine(event.resource);
    case "stage":
      return `stage ${event.stage} reached`;
    case "stalled":
      return `stalled: ${event.message}`;
    case "verdict":
      return undefined;
  }
}

/**
 * `[  12.3s] Deployment payments/api: pending (...)`: seconds since `observe` started. With
 * `--require verified` (`verifyWindowMs`), the healthy stage's line says how long the window runs:
 * a CI log otherwise shows nothing until its end.
 */
export function plainView(write: (text: string) => void, clock: Pick<ViewClock, "now"> = systemClock, verifyWindowMs?: number): ProgressView {
  const started = clock.now();
  const stamped = (line: string) => write(`[${((clock.now() - started) / 1000).toFixed(1).padStart(6)}s] ${line}\n`);
  // The expectation is the same in every progress event: said once, with the first.
  let expected = false;
  // What the log already says: the last line of each resource, and the last stage reached. observe
  // prints the verdict the moment the client has it, and the last progress and stage events can
  // still be on their way through the stream then; the verdict says the same things, so the lines
  // they would have added are written from it, once.
  const lastLineOf = new Map<string, string>();
  let reachedShown: ReachedStage = "none";
  return {
    event(event) {
      if (event.type === "progress" && event.expectation && !expected) {
        expected = true;
        stamped(`expected: to ${event.expectation.stage}, ${event.expectation.message}`);
      }
      if (event.type === "progress" && !event.verification) lastLineOf.set(describeResource(event.resource.identity), resourceLine(event.resource));
      if (event.type === "stage") reachedShown = event.stage;
      const line = plainLine(event);
      if (line) stamped(line);
      if (event.type === "stage" && event.stage === "healthy" && verifyWindowMs !== undefined) {
        stamped(`verifying: the new revision's pods must hold for ${formatDuration(verifyWindowMs)}`);
      }
    },
    finish(verdict) {
      // In the order the events would have said it: the expectation, the readings, the stages.
      const expectation = expected ? undefined : expectationOf(verdict.history, verdict.required);
      if (expectation) stamped(`expected: to ${verdict.required}, ${expectation.message}`);
      for (const resource of verdict.resources) {
        const line = resourceLine(resource);
        if (lastLineOf.get(describeResource(resource.identity)) !== line) stamped(line);
      }
      for (const stage of stagesBetween(reachedShown, verdict.reached)) stamped(`stage ${stage} reached`);
      const comparison = verdict.history?.comparison;
      if (comparison) stamped(`history: ${comparison.message}`);
    },
  };
}

/** What the live view needs of a terminal stream (process.stderr when it is a TTY). */
export interface Terminal {
  write(text: string): unknown;
  readonly columns?: number | undefined;
  readonly rows?: number | undefined;
}

const toneCodes: Record<Tone, string | undefined> = { good: "32", bad: "31", waiting: "33", dim: "2", plain: undefined };

function paint(line: ScreenLine, colour: boolean): string {
  return line
    .map(({ text, tone }) => {
      const code = colour ? toneCodes[tone] : undefined;
      return code && text ? `\x1b[${code}m${text}\x1b[0m` : text;
    })
    .join("");
}

export interface LiveViewOptions {
  terminal: Terminal;
  start: LiveStart;
  /** The service's verdict so far (`get`), when it answered: resolved identities and readings. */
  current?: ObservationVerdict | undefined;
  /** ANSI colours; off for NO_COLOR (https://no-color.org). */
  colour: boolean;
  clock?: ViewClock;
}

/** Redraws every second (elapsed time, budget left) and on every event. */
export function liveView(options: LiveViewOptions): ProgressView {
  const { terminal, colour } = options;
  const clock = options.clock ?? systemClock;
  const state = startLiveState(options.start);
  if (options.current) applyVerdict(state, options.current);
  let drawnLines = 0;
  const draw = () => {
    const lines = renderScreen(state, clock.now(), { columns: terminal.columns ?? 80, rows: terminal.rows ?? 24 });
    // Back to the block's first line (CPL), erase to the end of the screen (ED), draw anew.
    const back = drawnLines > 0 ? `\x1b[${drawnLines}F` : "";
    terminal.write(`${back}\x1b[J${lines.map((line) => paint(line, colour)).join("\n")}\n`);
    drawnLines = lines.length;
  };
  draw();
  const stop = clock.every(1000, draw);
  return {
    event(event) {
      applyEvent(state, event);
      draw();
    },
    finish(verdict) {
      stop();
      applyVerdict(state, verdict);
      draw();
    },
  };
}

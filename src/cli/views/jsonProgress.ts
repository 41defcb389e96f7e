// `observe --progress json`: progress for a CI system or an agent that parses rather than reads.
// Every line on stderr is one ProgressLine (schema/json/ProgressLine.json): the observation's events
// exactly as the service published them (signature included), so one parser serves the NATS
// subject and the CI log; observe's own sentences become `notice` lines rather than text between
// them. observeCommand reads the run's events to their end in this mode (the verdict event last)
// instead of stopping at the verdict's notice as the views for people do: a parser gets every stage
// event, not a verdict that stands in for the last ones.
import type { NoticeLine, ObservationEvent, ObservationVerdict, ObservingLine, ProgressLine } from "../../verdicts/contract/schemas.js";
import type { ProgressView, ViewClock } from "./progressViews.js";
import { systemClock } from "./progressViews.js";

export interface JsonProgress {
  /** The first line: the observation followed and who decides it. */
  observing(start: Omit<ObservingLine, "type" | "at">): void;
  /** The events, and at the end the verdict event if the run ended without one. */
  readonly view: ProgressView;
  /**
   * A stream for observe's text lines (notices, a local engine's warnings, an error report): each
   * line becomes a `notice`. Written to where the other modes write text to stderr.
   */
  readonly notices: { write(text: string): unknown };
}

/** A line observe and its error report start their sentences with; the `type` says whose it is. */
const textPrefix = "stagewatch: ";

export function jsonProgress(write: (text: string) => void, clock: Pick<ViewClock, "now"> = systemClock): JsonProgress {
  const line = (value: ProgressLine) => write(`${JSON.stringify(value)}\n`);
  const at = () => new Date(clock.now()).toISOString();
  let verdictWritten = false;
  return {
    observing: (start) => line({ type: "observing", at: at(), ...start }),
    view: {
      event(event: ObservationEvent) {
        if (event.type === "verdict") verdictWritten = true;
        line(event);
      },
      finish(verdict: ObservationVerdict) {
        // Both modes' runs end their events with the verdict event (the client pushes one even for a
        // verdict it had from `get`); this keeps a parser's last line a verdict should a run not.
        if (verdictWritten) return;
        verdictWritten = true;
        const { observationId, deployment, tenant } = verdict;
        line({ type: "verdict", observationId, deployment, ...(tenant !== undefined && { tenant }), at: verdict.decidedAt ?? at(), verdict });
      },
    },
    notices: {
      write(text: string) {
        for (const sentence of text.split("\n")) {
          if (sentence.trim() === "") continue;
          const message = sentence.startsWith(textPrefix) ? sentence.slice(textPrefix.length) : sentence;
          line({ type: "notice", at: at(), message } satisfies NoticeLine);
        }
      },
    },
  };
}

// When things happened during one observation, kept in its record beside the verdict (which says
// only where things stand): the moment each stage was reached, each resource left `pending`, and
// the notices given (stalls, adoptions by another replica). A trace and a history entry are built
// from it when the verdict is decided, so both are whole even when the observation changed
// replicas mid-way: the adopter resumes the timeline from the record as it resumes the readings.
import { z } from "zod";
import { Stage, type ObservationRequest, type ObservationVerdict, type ResourceState } from "./schemas.js";

/** Notices kept per observation: a stall is announced once until something moves, an adoption follows a crash. */
export const timelineNoticeLimit = 20;

export const TimelineNotice = z.object({
  type: z.enum(["stalled", "adopted"]),
  /** Epoch milliseconds. */
  atMs: z.number(),
  message: z.string(),
});
export type TimelineNotice = z.infer<typeof TimelineNotice>;

export const Timeline = z.object({
  /** Epoch milliseconds at which each stage was reached. */
  stages: z.partialRecord(Stage, z.number()),
  /** By identity key: epoch milliseconds at which the resource settled or failed. */
  resources: z.record(z.string(), z.number()),
  /** Oldest first, the newest timelineNoticeLimit. */
  notices: z.array(TimelineNotice),
});
export type Timeline = z.infer<typeof Timeline>;

/** A decided observation as its record holds it: what a trace and a history entry are built from. */
export interface DecidedObservation {
  readonly request: ObservationRequest;
  readonly verdict: ObservationVerdict;
  readonly timeline: Timeline;
}

export function emptyTimeline(): Timeline {
  return { stages: {}, resources: {}, notices: [] };
}

/** Notes a stage reached; the first time counts (a stage reached stays reached). */
export function noteStage(timeline: Timeline, stage: Stage, atMs: number): void {
  timeline.stages[stage] ??= atMs;
}

/** Notes a resource leaving `pending`; settled and failed resources are never read again, so the first time is the time. */
export function noteResource(timeline: Timeline, key: string, state: ResourceState, atMs: number): void {
  if (state !== "pending") timeline.resources[key] ??= atMs;
}

export function noteNotice(timeline: Timeline, notice: TimelineNotice): void {
  timeline.notices.push(notice);
  if (timeline.notices.length > timelineNoticeLimit) timeline.notices.splice(0, timeline.notices.length - timelineNoticeLimit);
}

// Local mode's event store: the follower gets every event of its observation in publishing order,
// including those published before it started reading, and the follow ends with the one verdict.
import { describe, expect, it } from "vitest";
import { failedVerdict } from "../../../test/fixtures/verdicts.js";
import type { ObservationEvent } from "../../verdicts/index.js";
import { InProcessEvents } from "./inProcessEvents.js";

const stage = (observationId: string): ObservationEvent => ({ type: "stage", observationId, deployment: "payments", stage: "applied", at: "2026-11-29T10:00:01.000Z" });

async function all(progress: AsyncIterable<ObservationEvent>): Promise<string[]> {
  const types: string[] = [];
  for await (const event of progress) types.push(event.type);
  return types;
}

describe("InProcessEvents", () => {
  it("hands over events published before and after the follower started, ending after the verdict", async () => {
    const events = new InProcessEvents();
    const verdict = failedVerdict;
    await events.publish(stage(verdict.observationId));
    const follow = events.follow(verdict.observationId);
    const read = all(follow.progress);
    await events.publish(stage(verdict.observationId));
    expect(await events.hasVerdict("payments", verdict.observationId)).toBe(false);
    await events.publish({ type: "verdict", observationId: verdict.observationId, deployment: "payments", at: "2026-11-29T10:00:02.000Z", verdict });
    expect(await read).toEqual(["stage", "stage", "verdict"]);
    expect(await follow.verdict).toEqual(verdict);
    expect(await events.hasVerdict("payments", verdict.observationId)).toBe(true);
  });

  it("close ends a follow still waiting: the verdict rejects, the progress ends", async () => {
    const events = new InProcessEvents();
    const follow = events.follow("obs-1");
    const read = all(follow.progress);
    events.close(new Error("stopped before a verdict"));
    expect(await read).toEqual([]);
    await expect(follow.verdict).rejects.toThrow("stopped before a verdict");
  });
});

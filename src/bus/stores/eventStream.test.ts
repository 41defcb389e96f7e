import { describe, expect, it } from "vitest";
import { EventStreamSetupError, planEventStreams } from "./eventStream.js";
import { busNames } from "../subjects.js";

const names = busNames("stagewatch");
const MiB = 1024 ** 2;

describe("planEventStreams", () => {
  it("without tenants: one stream for every event, with all the bytes (as before tenants)", () => {
    expect(planEventStreams(names, { maxBytes: 256 * MiB }, ["STAGEWATCH_EVENTS"])).toEqual({
      streams: [{ name: "STAGEWATCH_EVENTS", subjects: ["stagewatch.events.>"], maxBytes: 256 * MiB }],
      otherTenantStreams: [],
    });
  });

  it("with tenants: a stream each on its own subjects, and the tenantless one, the bytes split evenly", () => {
    const layout = planEventStreams(names, { maxBytes: 256 * MiB, tenants: ["TEAM_A", "TEAM_B", "PLATFORM", "TEAM_A"] }, []);
    const share = Math.floor((256 * MiB) / 4);
    expect(layout.streams).toEqual([
      { name: "STAGEWATCH_EVENTS", subjects: ["stagewatch.events.*.*"], maxBytes: share },
      { name: "STAGEWATCH_EVENTS-TEAM_A", subjects: ["stagewatch.events.TEAM_A.*.*"], maxBytes: share },
      { name: "STAGEWATCH_EVENTS-TEAM_B", subjects: ["stagewatch.events.TEAM_B.*.*"], maxBytes: share },
      { name: "STAGEWATCH_EVENTS-PLATFORM", subjects: ["stagewatch.events.PLATFORM.*.*"], maxBytes: share },
    ]);
    // The reservation against the server's max_file_store is what the setting says, not tenants times it.
    expect(layout.streams.reduce((sum, s) => sum + s.maxBytes, 0)).toBeLessThanOrEqual(256 * MiB);
  });

  it("names the streams of tenants no longer in the file, and never takes another prefix's stream for one", () => {
    const existing = ["STAGEWATCH_EVENTS", "STAGEWATCH_EVENTS-TEAM_A", "STAGEWATCH_EVENTS-OLD_TEAM", "STAGEWATCH_EVENTS_X_EVENTS"];
    expect(planEventStreams(names, { tenants: ["TEAM_A"] }, existing).otherTenantStreams).toEqual(["STAGEWATCH_EVENTS-OLD_TEAM"]);
  });

  it("without tenants but with tenants' streams of an earlier start: the one stream keeps to tenantless subjects, which do not overlap them", () => {
    const layout = planEventStreams(names, { maxBytes: 64 * MiB }, ["STAGEWATCH_EVENTS-TEAM_A"]);
    expect(layout).toEqual({
      streams: [{ name: "STAGEWATCH_EVENTS", subjects: ["stagewatch.events.*.*"], maxBytes: 64 * MiB }],
      otherTenantStreams: ["STAGEWATCH_EVENTS-TEAM_A"],
    });
  });

  it("refuses shares smaller than one event, naming the setting", () => {
    const plan = () => planEventStreams(names, { maxBytes: 8 * MiB, maxMessageBytes: 8 * MiB, tenants: ["TEAM_A"] }, []);
    expect(plan).toThrow(EventStreamSetupError);
    expect(plan).toThrow(/4194304 bytes a stream, less than one event \(8388608 bytes.*--event-stream-max-bytes/);
  });
});

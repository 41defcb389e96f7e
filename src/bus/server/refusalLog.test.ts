// Refusal logs sampled on virtual time: the first of each kind in full, the rest counted per interval.
import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Logger } from "../../logging/index.js";
import { RefusalLog, type Refusal } from "./refusalLog.js";

function recorded() {
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  const record = (fields: object, message: string) => void lines.push({ message, fields: fields as Record<string, unknown> });
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  return { lines, logger };
}

const refusal = (caller: string, limit: string, kind = "get"): Refusal => ({
  caller,
  kind,
  code: "quota",
  limit,
  subject: `stagewatch.${kind}.${caller}`,
  message: `tenant ${caller} has 4 of 4 requests pending on this replica`,
  issues: [{ path: "(request)", message: "..." }],
});

describe("RefusalLog", () => {
  it("logs the first refusal of each caller and limit at once, then one count per interval", () => {
    const scheduler = new VirtualTimeScheduler();
    const { lines, logger } = recorded();
    const log = new RefusalLog({ logger, scheduler, intervalMs: 10_000 });
    for (let i = 0; i < 43_518; i++) log.note(refusal("TEAM_B", i % 2 === 0 ? "pendingPerCaller" : "getsPerSecond"));
    log.note(refusal("TEAM_A", "listsPerSecond", "list"));
    expect(lines.map((line) => [line.message, line.fields.caller, line.fields.limit])).toEqual([
      ["request refused; more like it are counted", "TEAM_B", "pendingPerCaller"],
      ["request refused; more like it are counted", "TEAM_B", "getsPerSecond"],
      ["request refused; more like it are counted", "TEAM_A", "listsPerSecond"],
    ]);
    expect(lines[0]!.fields).toMatchObject({ kind: "get", code: "quota", subject: "stagewatch.get.TEAM_B", message: expect.stringContaining("4 of 4"), issues: [{ path: "(request)" }] });

    scheduler.maxFrames = 10_000;
    scheduler.flush();
    expect(lines.slice(3).map((line) => line.fields)).toEqual([
      { caller: "TEAM_B", kind: "get", code: "quota", limit: "pendingPerCaller", refused: 21_758, seconds: 10 },
      { caller: "TEAM_B", kind: "get", code: "quota", limit: "getsPerSecond", refused: 21_758, seconds: 10 },
    ]);

    // The next interval starts afresh: its first refusal is logged in full again.
    log.note(refusal("TEAM_B", "getsPerSecond"));
    expect(lines).toHaveLength(6);
    expect(lines[5]!.message).toBe("request refused; more like it are counted");
    log.stop();
  });

  it("tells apart at most maxKinds kinds an interval, counting the rest together", () => {
    const scheduler = new VirtualTimeScheduler();
    const { lines, logger } = recorded();
    const log = new RefusalLog({ logger, scheduler, maxKinds: 2 });
    for (let i = 0; i < 1_000; i++) log.note(refusal(`T${i}`, "pendingPerCaller"));
    expect(lines.map((line) => line.fields.caller)).toEqual(["T0", "T1", "(other)"]);
    log.stop();
    expect(lines.at(-1)!.fields).toMatchObject({ caller: "(other)", refused: 997 });
  });
});

// The record writer: its hold (while a decided verdict is being completed, the failing container's
// log tail, a write waiting behind one in flight does not go out with the incomplete verdict), and
// its quiet writes (a pending message alone waits for the quiet interval).
import { silentLogger } from "../../logging/index.js";
import { describe, expect, it } from "vitest";
import type { ObservationRecord, ObservationRecords, RecordUpdate } from "../../bus/index.js";
import { emptyTimeline, type ObservationVerdict } from "../../verdicts/index.js";
import { quietWriteIntervalMs, RecordWriter } from "./recordWriter.js";

const verdict = (message: string, outcome: ObservationVerdict["outcome"] = "in_progress"): ObservationVerdict => ({
  observationId: "obs-1",
  key: "k",
  deployment: "payments",
  required: "healthy",
  reached: "applied",
  outcome,
  resources: [],
  message,
  startedAt: "2026-11-29T10:00:00Z",
  deadline: "2026-11-29T10:05:00Z",
});

const initial: ObservationRecord = {
  observationId: "obs-1",
  contentHash: "h",
  request: { key: "k", deployment: "payments", require: "healthy", timeoutSeconds: 300, absentGraceSeconds: 10, stallSeconds: 120, resources: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "payments", name: "c" }], failOn: [] },
  identities: [],
  startedAt: "2026-11-29T10:00:00Z",
  deadline: "2026-11-29T10:05:00Z",
  outcome: "in_progress",
};

/** Records whose updates wait until released, one at a time; remembers each verdict message written. */
function gatedRecords() {
  const written: string[] = [];
  const gates: (() => void)[] = [];
  let revision = 1;
  const records = {
    async updateRecord(record: ObservationRecord): Promise<RecordUpdate> {
      await new Promise<void>((resolve) => gates.push(resolve));
      written.push(record.verdict!.message);
      return { updated: true, revision: ++revision };
    },
  } as unknown as ObservationRecords;
  const release = async () => {
    gates.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { records, written, release };
}

describe("RecordWriter.hold", () => {
  it("keeps a waiting write back until decide(), which writes the completed verdict once", async () => {
    const { records, written, release } = gatedRecords();
    let content = verdict("reading 1");
    const writer = new RecordWriter({
      records,
      logger: silentLogger,
      owner: "replica-a",
      initial: { record: initial, revision: 1 },
      content: () => ({ verdict: content, labelledBootstrap: [], timeline: emptyTimeline() }),
      onSuperseded: () => {},
    });
    const first = writer.update();
    content = verdict("reading 2");
    const second = writer.update();
    // Decided: the verdict is being completed, and what the state holds now is terminal but not final.
    content = verdict("decided, no log tail yet", "failed");
    writer.hold();
    await release();
    expect(written).toEqual(["reading 1"]);
    await release();
    expect(written).toEqual(["reading 1"]);

    content = verdict("decided, with its log tail", "failed");
    const decided = writer.decide();
    await release();
    expect(await decided).toEqual({ stored: true });
    expect(written).toEqual(["reading 1", "decided, with its log tail"]);
    expect([await first, await second]).toEqual([true, true]);
    expect(writer.storedVerdict?.message).toBe("decided, with its log tail");
  });
});

describe("RecordWriter.updateLater", () => {
  /** A writer over `records` whose quiet writes run when the test fires them. */
  function quietWriter(records: ObservationRecords, content: () => ObservationVerdict) {
    const timers: { work: () => void; ms: number; cancelled: boolean }[] = [];
    const writer = new RecordWriter({
      records,
      logger: silentLogger,
      owner: "replica-a",
      initial: { record: initial, revision: 1 },
      content: () => ({ verdict: content(), labelledBootstrap: [], timeline: emptyTimeline() }),
      onSuperseded: () => {},
      schedule: (work, ms) => {
        const timer = { work, ms, cancelled: false };
        timers.push(timer);
        return { unsubscribe: () => void (timer.cancelled = true) };
      },
    });
    const fire = () => timers.filter((timer) => !timer.cancelled).forEach((timer) => timer.work());
    return { writer, timers, fire };
  }

  it("writes message-only changes once per quiet interval, with the newest content", async () => {
    const { records, written, release } = gatedRecords();
    let content = verdict("3/20 ready");
    const { writer, timers, fire } = quietWriter(records, () => content);
    writer.updateLater();
    content = verdict("4/20 ready");
    writer.updateLater();
    content = verdict("5/20 ready");
    writer.updateLater();
    expect(timers.map((timer) => timer.ms)).toEqual([quietWriteIntervalMs]);
    expect(written).toEqual([]);
    fire();
    await release();
    expect(written).toEqual(["5/20 ready"]);
  });

  it("a change a client sees goes out at once and carries the quiet change with it", async () => {
    const { records, written, release } = gatedRecords();
    let content = verdict("3/20 ready");
    const { writer, timers } = quietWriter(records, () => content);
    writer.updateLater();
    content = verdict("api settled");
    const stored = writer.update();
    expect(timers[0]!.cancelled).toBe(true);
    await release();
    expect(await stored).toBe(true);
    expect(written).toEqual(["api settled"]);
  });

  it("a hand-over writes what waits at once; a stop forgets it", async () => {
    const { records, written, release } = gatedRecords();
    const { writer } = quietWriter(records, () => verdict("4/20 ready"));
    writer.updateLater();
    writer.flushLater();
    await release();
    expect(written).toEqual(["4/20 ready"]);
    const { writer: stopped, timers } = quietWriter(records, () => verdict("5/20 ready"));
    stopped.updateLater();
    stopped.cancelLater();
    expect(timers[0]!.cancelled).toBe(true);
    await stopped.idle();
    expect(written).toEqual(["4/20 ready"]);
  });
});

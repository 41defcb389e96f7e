import { describe, expect, test } from "vitest";
import { api, failedVerdict, observationId } from "../../../test/fixtures/verdicts.js";
import { ProgressLine, type ObservationEvent } from "../../verdicts/contract/schemas.js";
import { jsonProgress } from "./jsonProgress.js";

const now = Date.parse("2026-11-29T10:00:03Z");
const clock = { now: () => now };

/** What the writer wrote, one parsed object a line; a line that is not one whole JSON object fails here. */
function written(text: string): unknown[] {
  expect(text.endsWith("\n")).toBe(true);
  return text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as unknown);
}

// The events of failedVerdict's observation as the service published them, signed as a service with a key signs.
const signature = { key: `N${"A".repeat(55)}`, sig: "s".repeat(86) };
const events: ObservationEvent[] = [
  { type: "stage", observationId, deployment: "payments", at: "2026-11-29T10:00:02Z", stage: "applied", signature },
  {
    type: "progress",
    observationId,
    deployment: "payments",
    at: "2026-11-29T10:00:04Z",
    resource: { identity: api, state: "pending", reason: "ImagePullBackOff", message: '0/2 replicas ready, 2 updated; pod api-7f9c-x2 container api: ImagePullBackOff: Back-off pulling image "registry.example/api:7"' },
    signature,
  },
  { type: "stage", observationId, deployment: "payments", at: "2026-11-29T10:00:05Z", stage: "bootstrapped", signature },
  { type: "verdict", observationId, deployment: "payments", at: "2026-11-29T10:00:41Z", verdict: failedVerdict, signature },
];

describe("observe --progress json", () => {
  test("the first line says what is followed; then every event as published, signature and all, one object a line", () => {
    let out = "";
    const progress = jsonProgress((text) => (out += text), clock);
    progress.observing({ observationId, deployment: "payments", mode: "service", replay: false, resources: 3 });
    for (const event of events) progress.view.event(event);
    progress.view.finish(failedVerdict);
    const lines = written(out);
    expect(lines[0]).toEqual({ type: "observing", at: "2026-11-29T10:00:03.000Z", observationId, deployment: "payments", mode: "service", replay: false, resources: 3 });
    expect(lines.slice(1)).toEqual(events);
    // The verdict event arrived: finish adds nothing after it.
    expect(lines).toHaveLength(1 + events.length);
    for (const line of lines) expect(ProgressLine.safeParse(line).success).toBe(true);
  });

  test("a run that ends without a verdict event still ends the log with one, built from the verdict", () => {
    let out = "";
    const progress = jsonProgress((text) => (out += text), clock);
    progress.view.event(events[0]!);
    progress.view.finish({ ...failedVerdict, tenant: "payments-team" });
    const last = written(out).at(-1);
    expect(last).toEqual({ type: "verdict", observationId, deployment: "payments", tenant: "payments-team", at: failedVerdict.decidedAt, verdict: { ...failedVerdict, tenant: "payments-team" } });
  });

  test("observe's text becomes notice lines, one a sentence, without the 'stagewatch: ' prefix", () => {
    let out = "";
    const progress = jsonProgress((text) => (out += text), clock);
    progress.notices.write("stagewatch: --key has no effect in local mode: nothing outlives this process, so there is nothing to replay or follow by key\n");
    progress.notices.write("stagewatch: warning: cannot watch events in payments: forbidden\nstagewatch: verdict not verified: no verify key\n\n");
    expect(written(out)).toEqual([
      { type: "notice", at: "2026-11-29T10:00:03.000Z", message: "--key has no effect in local mode: nothing outlives this process, so there is nothing to replay or follow by key" },
      { type: "notice", at: "2026-11-29T10:00:03.000Z", message: "warning: cannot watch events in payments: forbidden" },
      { type: "notice", at: "2026-11-29T10:00:03.000Z", message: "verdict not verified: no verify key" },
    ]);
  });

  test("a message holding a newline or a control character stays on its line, escaped", () => {
    let out = "";
    const progress = jsonProgress((text) => (out += text), clock);
    const message = "Back-off pulling image\n\"registry.example/api:7\"\u001b[2J";
    progress.view.event({ ...events[1]!, resource: { identity: api, state: "pending", reason: "ImagePullBackOff", message } } as ObservationEvent);
    expect(out.split("\n")).toHaveLength(2);
    expect(written(out)[0]).toMatchObject({ resource: { message } });
  });
});

import { describe, expect, test } from "vitest";
import type { ObservationEvent, ObservationVerdict } from "../../verdicts/index.js";
import { liveView, plainView, type ViewClock } from "./progressViews.js";

const t0 = Date.parse("2026-12-01T10:00:00Z");

function virtualClock() {
  let now = t0;
  const ticks = new Set<() => void>();
  const clock: ViewClock = {
    now: () => now,
    every: (_ms, tick) => {
      ticks.add(tick);
      return () => ticks.delete(tick);
    },
  };
  return { clock, advance: (s: number) => ((now += s * 1000), ticks.forEach((tick) => tick())), ticking: () => ticks.size };
}

const progress: ObservationEvent = {
  type: "progress",
  observationId: "obs-1",
  deployment: "web",
  at: "",
  resource: { identity: { apiVersion: "apps/v1", kind: "Deployment", namespace: "shop", name: "web" }, state: "pending", reason: "AwaitingStatus", message: "0/2 replicas ready" },
};
const stage: ObservationEvent = { type: "stage", observationId: "obs-1", deployment: "web", at: "", stage: "applied" };
const verdict: ObservationVerdict = {
  observationId: "obs-1",
  key: "k",
  deployment: "web",
  required: "healthy",
  reached: "healthy",
  outcome: "succeeded",
  resources: [{ ...(progress.type === "progress" ? progress.resource : ({} as never)), state: "settled", reason: undefined, message: undefined }],
  message: "deployment web reached healthy: 1 resource settled",
  startedAt: new Date(t0).toISOString(),
  deadline: new Date(t0 + 300_000).toISOString(),
  decidedAt: new Date(t0 + 3_000).toISOString(),
};

describe("plainView", () => {
  test("one line per change with the seconds since start, and not a single control character", () => {
    const { clock, advance } = virtualClock();
    let out = "";
    const view = plainView((text) => (out += text), clock);
    advance(1.25);
    view.event(progress);
    view.event(stage);
    view.finish(verdict);
    expect(out).toBe(
      "[   1.3s] Deployment shop/web: pending (AwaitingStatus): 0/2 replicas ready\n[   1.3s] stage applied reached\n" +
        // The verdict came before the stream's last events: what they would have said, from the verdict.
        "[   1.3s] Deployment shop/web: settled\n[   1.3s] stage bootstrapped reached\n[   1.3s] stage healthy reached\n",
    );
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
  });

  test("--require verified: the healthy stage's line is followed by how long the window runs", () => {
    const { clock, advance } = virtualClock();
    let out = "";
    const view = plainView((text) => (out += text), clock, 300_000);
    advance(4);
    view.event({ ...stage, stage: "healthy" } as ObservationEvent);
    expect(out).toBe("[   4.0s] stage healthy reached\n[   4.0s] verifying: the new revision's pods must hold for 5m0s\n");
  });

  test("--require verified with analyses: a measurement's event is a line of the checks, not the workload's unchanged line", () => {
    const { clock, advance } = virtualClock();
    let out = "";
    const view = plainView((text) => (out += text), clock, 300_000);
    advance(9);
    const verification = {
      windowSeconds: 300,
      startedAt: "2026-12-01T10:00:04.000Z",
      endsAt: "2026-12-01T10:05:04.000Z",
      pods: [],
      analyses: [{ name: "error-rate", status: "running" as const, taken: 1, count: 5, failed: 0, inconclusive: 0, last: 0.002 }],
    };
    view.event({ ...progress, resource: { ...progress.resource, state: "settled" }, verification } as ObservationEvent);
    expect(out).toBe("[   9.0s] analysis error-rate: 1 of 5 measurements, 0 failed, last 0.002\n");
  });

  test("events that did arrive before the verdict are not said twice", () => {
    const { clock } = virtualClock();
    let out = "";
    const view = plainView((text) => (out += text), clock);
    view.event(progress);
    view.event(stage);
    if (progress.type !== "progress") throw new Error("fixture");
    view.event({ ...progress, resource: verdict.resources[0]! });
    view.event({ ...stage, stage: "bootstrapped" });
    view.event({ ...stage, stage: "healthy" });
    const before = out;
    view.finish(verdict);
    expect(out).toBe(before);
    expect(out.match(/stage healthy reached/g)).toHaveLength(1);
  });
});

describe("the history in the plain view", () => {
  const expectation = { stage: "healthy" as const, samples: 23, medianSeconds: 72, p90Seconds: 125, p95Seconds: 140, message: "usually 1m12s, 90% within 2m5s, from 23 earlier rollouts" };
  const comparison = { stage: "healthy" as const, seconds: 3, samples: 23, medianSeconds: 72, p90Seconds: 125, fasterThan: 23, message: "healthy in 3s: faster than 23 of 23 earlier rollouts (usually 1m12s, 90% within 2m5s, from 23 earlier rollouts)" };

  test("the expectation once, with the first progress event that carries it; at the end, how this one compared", () => {
    const { clock } = virtualClock();
    let out = "";
    const view = plainView((text) => (out += text), clock);
    view.event({ ...progress, expectation } as ObservationEvent);
    view.event({ ...progress, expectation } as ObservationEvent);
    view.finish({ ...verdict, history: { earlier: 23, stages: { healthy: { ...expectation, earlierSeconds: [] } }, comparison } });
    expect(out.split("\n").filter((line) => line.includes("expected:"))).toEqual(["[   0.0s] expected: to healthy, usually 1m12s, 90% within 2m5s, from 23 earlier rollouts"]);
    expect(out).toMatch(/\[ {3}0\.0s\] history: healthy in 3s: faster than 23 of 23 earlier rollouts \(usually 1m12s, 90% within 2m5s, from 23 earlier rollouts\)\n$/);
  });

  test("the live view shows it under the header", () => {
    const { clock } = virtualClock();
    const writes: string[] = [];
    const view = liveView({
      terminal: { write: (text: string) => writes.push(text), columns: 120, rows: 30 },
      start: { deployment: "web", observationId: "obs-1", required: "healthy", startedAtMs: t0, deadlineMs: t0 + 300_000 },
      colour: false,
      clock,
    });
    view.event({ ...progress, expectation } as ObservationEvent);
    expect(writes.at(-1)).toContain("deployment web: reached none of healthy   0s elapsed, 5m0s left\nhistory to healthy: usually 1m12s, 90% within 2m5s, from 23 earlier rollouts\nstages");
  });
});

describe("liveView", () => {
  test("draws at once, redraws in place every second and on events, stops redrawing at the verdict", () => {
    const { clock, advance, ticking } = virtualClock();
    const writes: string[] = [];
    const view = liveView({
      terminal: { write: (text: string) => writes.push(text), columns: 100, rows: 30 },
      start: { deployment: "web", observationId: "obs-1", required: "healthy", startedAtMs: t0, deadlineMs: t0 + 300_000 },
      colour: false,
      clock,
    });
    // Nothing to move back over yet: erase below, draw header and stages.
    expect(writes[0]).toBe("\x1b[Jdeployment web: reached none of healthy   0s elapsed, 5m0s left\nstages  applied …  bootstrapped …  healthy … \n");
    advance(1);
    expect(writes[1]).toBe("\x1b[2F\x1b[Jdeployment web: reached none of healthy   1s elapsed, 4m59s left\nstages  applied …  bootstrapped …  healthy … \n");
    view.event(progress);
    expect(writes[2]).toMatch(/^\x1b\[2F\x1b\[J.*\npending Deployment shop\/web {2}AwaitingStatus: 0\/2 replicas ready\n$/s);
    view.finish(verdict);
    expect(writes[3]).toBe(
      "\x1b[3F\x1b[Jdeployment web succeeded: reached healthy of healthy in 3s\nstages  applied ✓  bootstrapped ✓  healthy ✓ \nsettled Deployment shop/web\n",
    );
    expect(ticking()).toBe(0);
  });

  test("colours by state unless turned off", () => {
    const { clock } = virtualClock();
    const writes: string[] = [];
    const view = liveView({
      terminal: { write: (text: string) => writes.push(text) },
      start: { deployment: "web", observationId: "obs-1", required: "healthy", startedAtMs: t0, deadlineMs: t0 + 300_000 },
      colour: true,
      clock,
    });
    view.finish(verdict);
    expect(writes.at(-1)).toContain("\x1b[32msucceeded\x1b[0m");
    expect(writes.at(-1)).toContain("\x1b[32msettled \x1b[0m");
  });
});

import { describe, expect, it } from "vitest";
import { outcomes, type Outcome } from "./schemas.js";
import { isTerminal, transition } from "./outcome.js";

const terminal: Outcome[] = ["succeeded", "failed", "timed_out", "cancelled"];

describe("transition", () => {
  it.each(outcomes)("in_progress -> %s is allowed", (next) => {
    expect(transition("in_progress", next)).toBe(next);
  });

  it.each(terminal.flatMap((current) => outcomes.map((next) => [current, next] as const)))("%s never changes (proposed %s)", (current, next) => {
    expect(transition(current, next)).toBe(current);
  });

  it("a cancel beats a failure that comes after it", () => {
    expect(transition(transition("in_progress", "cancelled"), "failed")).toBe("cancelled");
  });

  it("knows which outcomes are terminal", () => {
    expect(outcomes.filter(isTerminal)).toEqual(terminal);
  });
});

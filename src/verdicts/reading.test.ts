import { describe, expect, it } from "vitest";
import { failed, maxMessageLength, pending, settled } from "./reading.js";

describe("reading messages: cut, scrubbed, on one line", () => {
  it("a megabyte of condition message is cut to its bound before anything else reads it", () => {
    const message = `Reconcile failed: password=hunter2 ${"spec.replicas is invalid; ".repeat(40_000)}`;
    const reading = pending("ReconcileError", message);
    expect(reading.message).toHaveLength(maxMessageLength);
    expect(reading.message.startsWith("Reconcile failed: password=[redacted] spec.replicas")).toBe(true);
    expect(reading.message.endsWith("…")).toBe(true);
  });

  it("folds whitespace around line breaks into one space, and leaves other runs of spaces", () => {
    expect(failed("Error", "migration failed:  \r\n\n   relation \"invoices\"   exists\n").message).toBe(
      'migration failed: relation "invoices"   exists',
    );
  });

  it("a short message is kept whole", () => {
    expect(settled("3/3 replicas ready").message).toBe("3/3 replicas ready");
  });
});

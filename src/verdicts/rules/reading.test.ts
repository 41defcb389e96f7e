import { describe, expect, it } from "vitest";
import { clean, failed, maxMessageLength, pending, settled } from "./reading.js";

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

  it("a text cleaned again, from the memo, is cleaned as the first time: scrubbed and folded", () => {
    const texts = [
      'Back-off pulling image "registry.example/app:1": token=abc123\n  retrying',
      "2 of 20 updated replicas are available",
      'Get "https://user:hunter2@registry.example/v2/": dial tcp: i/o timeout',
    ];
    const first = texts.map((text) => clean(text));
    expect(first[0]).toBe('Back-off pulling image "registry.example/app:1": token=[redacted] retrying');
    expect(first[2]).not.toContain("hunter2");
    // Past the memo's size it is dropped and filled again; each answer stays the same throughout.
    for (let i = 0; i < 5_000; i++) clean(`${i} of 20 updated replicas are available`);
    expect(texts.map((text) => clean(text))).toEqual(first);
    expect(texts.map((text) => clean(text))).toEqual(first);
  });
});

import { describe, expect, it } from "vitest";
import { SharedValues } from "./sharedValues.js";

describe("SharedValues", () => {
  it("hands out the first of equal values, deeply frozen", () => {
    const values = new SharedValues(10);
    const first = values.share({ phase: "Running", conditions: [{ type: "Ready", status: "True" }] });
    const second = values.share({ phase: "Running", conditions: [{ type: "Ready", status: "True" }] });
    expect(second).toBe(first);
    expect(Object.isFrozen(first.conditions[0])).toBe(true);
    expect(values.share({ phase: "Pending" })).not.toBe(first);
  });

  it("keeps strings and objects apart, even when a string reads like an object's JSON", () => {
    const values = new SharedValues(10);
    const object = values.share({ a: 1 });
    expect(values.string('{"a":1}')).toBe('{"a":1}');
    expect(values.share({ a: 1 })).toBe(object);
  });

  it("starts afresh past its capacity: values handed out stay as they are, later copies are new", () => {
    const values = new SharedValues(2);
    const kept = values.share({ n: 0 });
    values.share({ n: 1 });
    values.share({ n: 2 });
    const again = values.share({ n: 0 });
    expect(again).not.toBe(kept);
    expect(again).toEqual(kept);
    expect(values.share({ n: 0 })).toBe(again);
  });
});

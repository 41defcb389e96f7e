import { describe, expect, it } from "vitest";
import { EventBuffer, eventBufferLimitsFor } from "./eventBuffer.js";

describe("EventBuffer", () => {
  it("refuses a droppable event past the events, the bytes, or the tenant's bytes, and says which", () => {
    const buffer = new EventBuffer({ maxEvents: 3, maxBytes: 3_000, maxBytesPerTenant: 1_500 });
    expect(buffer.take("TEAM_B", 1_000, true)).toBeUndefined();
    expect(buffer.take("TEAM_B", 1_000, true)).toBe("tenantBytes");
    expect(buffer.take("TEAM_A", 1_400, true)).toBeUndefined();
    expect(buffer.take(undefined, 700, true)).toBe("bytes");
    expect(buffer.take(undefined, 500, true)).toBeUndefined();
    expect(buffer.take(undefined, 1, true)).toBe("events");
    expect([buffer.events, buffer.bytes, buffer.bytesOf("TEAM_A"), buffer.bytesOf(undefined)]).toEqual([3, 2_900, 1_400, 500]);
  });

  it("always takes what must be kept, past every bound, and frees what is released", () => {
    const buffer = new EventBuffer({ maxEvents: 1, maxBytes: 100, maxBytesPerTenant: 100 });
    expect(buffer.take("TEAM_B", 100, true)).toBeUndefined();
    expect(buffer.take("TEAM_B", 5_000, false)).toBeUndefined();
    expect(buffer.take("TEAM_B", 10, true)).toBe("events");
    buffer.release("TEAM_B", 5_000);
    buffer.release("TEAM_B", 100);
    expect([buffer.events, buffer.bytes, buffer.bytesOf("TEAM_B")]).toEqual([0, 0, 0]);
    expect(buffer.take("TEAM_B", 100, true)).toBeUndefined();
  });

  it("gives each tenant of the file an equal share of the bytes", () => {
    expect(eventBufferLimitsFor(4, { maxEvents: 10, maxBytes: 1_000, maxBytesPerTenant: 1_000 })).toEqual({ maxEvents: 10, maxBytes: 1_000, maxBytesPerTenant: 250 });
    expect(eventBufferLimitsFor(0).maxBytesPerTenant).toBe(eventBufferLimitsFor(0).maxBytes);
  });
});
